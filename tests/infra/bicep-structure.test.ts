/**
 * What the deployment must contain, read from the ARM template the Bicep compiler makes of
 * infra/main.bicep (the JSON Azure Resource Manager receives), not from the Bicep text: the
 * parameters file against main.bicep, the storage names the services depend on, what monitoring
 * covers, the email the sign-in codes go out through, and the order of a site's configuration writes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { allServices, functionsOf } from '../../functions/registry';
import { settingDefaults, type Setting } from '../../shared/config';
import { SETTINGS } from '../../functions/settings';
import { resolveAppSetting } from '../../shared/functions';
import { compiledInfra, describeWithBicep, INFRA, moduleDeployment, moduleTemplate, resourceOfType, resourcesOfType, type ArmTemplate } from '../helpers/bicep';
import { evaluate, instances, moduleScope, parameterValue, topScope } from '../../scripts/arm-expressions';

const parametersFile = () => JSON.parse(fs.readFileSync(path.join(INFRA, 'main.parameters.json'), 'utf8')).parameters as Record<string, { value: unknown }>;

describeWithBicep('the compiled template of infra/main.bicep', (bicep) => {
  let main: ArmTemplate;
  beforeAll(() => {
    main = compiledInfra(bicep);
  });

  describe('main.bicep', () => {
    it('has a parameters file naming only its parameters, including every required one', () => {
      const given = Object.keys(parametersFile());
      expect(given.filter((name) => !(name in main.parameters))).toEqual([]);
      const required = Object.entries(main.parameters).filter(([, p]) => p.defaultValue === undefined);
      expect(required.map(([name]) => name).filter((name) => !given.includes(name))).toEqual([]);
    });

    it('outputs no secret', () => {
      expect(Object.keys(main.outputs ?? {}).filter((name) => /SECRET|KEY$|TOKEN|PASSWORD|CONNECTION/i.test(name))).toEqual([]);
      expect(fs.readFileSync(path.join(INFRA, 'main.parameters.json'), 'utf8')).not.toMatch(/secret|password|token/i);
      for (const output of Object.values(main.outputs ?? {})) expect(JSON.stringify(output)).not.toMatch(/listKeys|listSecrets/i);
    });
  });

  describe('storage', () => {
    let storage: ArmTemplate;
    beforeAll(() => {
      storage = moduleTemplate(main, 'storage');
    });

    it("has shared-key access off, in the data account and in every app's host account", () => {
      expect(resourceOfType(storage, 'Microsoft.Storage/storageAccounts').properties.allowSharedKeyAccess).toBe(false);
      expect(resourceOfType(moduleTemplate(main, 'hostStorage'), 'Microsoft.Storage/storageAccounts').properties.allowSharedKeyAccess).toBe(false);
    });

    it('declares the containers, the failed-sync table and the report queue with its poison queue', () => {
      const v = storage.variables!;
      expect([v.chartCacheContainer, v.reportsContainer, v.failedSyncTable, v.reportQueue]).toEqual([
        'chart-cache',
        'reports',
        'paymentfailedsyncs',
        'report-executions',
      ]);
      const queues = resourceOfType(storage, 'Microsoft.Storage/storageAccounts/queueServices/queues');
      expect(queues.copy!.count).toBe("[length(createArray(variables('reportQueue'), format('{0}-poison', variables('reportQueue'))))]");
      const containers = resourceOfType(storage, 'Microsoft.Storage/storageAccounts/blobServices/containers');
      // Only the platform's data: the host's containers and the packages are in each app's own account.
      expect(containers.copy!.count).toBe("[length(createArray(variables('chartCacheContainer'), variables('reportsContainer')))]");
      expect(resourceOfType(storage, 'Microsoft.Storage/storageAccounts/tableServices/tables').copy!.count).toBe(
        "[length(createArray(variables('failedSyncTable'), variables('sqlWorkTable')))]",
      );
    });

    // The services' settings naming these (tuning, with defaults) must default to what the Bicep creates.
    it.each([
      ['PAYMENT_FAILED_SYNC_TABLE', 'failedSyncTable'],
      ['ORCHESTRATOR_QUEUE', 'reportQueue'],
      ['ORCHESTRATOR_REPORTS_CONTAINER', 'reportsContainer'],
      ['VISUAL_CACHE_CONTAINER', 'chartCacheContainer'],
    ])('creates the default of %s', (setting, variable) => {
      const declared = (SETTINGS as Record<string, Setting<unknown>>)[setting];
      expect(declared).toBeDefined();
      expect(storage.variables![variable]).toBe(declared.default);
    });

    it('declares the queue (and poison queue) of every queue-triggered function', () => {
      // Queue triggers name their queue as %SETTING%; the Bicep sets that setting to the queue it creates.
      const defaults = settingDefaults(SETTINGS);
      const queues = functionsOf(allServices()).filter((fn) => fn.kind === 'queue');
      expect(queues.length).toBeGreaterThan(0);
      for (const fn of queues) if (fn.kind === 'queue') expect(storage.variables!.reportQueue).toBe(resolveAppSetting(fn.queueName, defaults));
    });

    it('expires chart-cache blobs after a day and reports after reportRetentionDays (90 by default)', () => {
      const rules = resourceOfType(storage, 'Microsoft.Storage/storageAccounts/managementPolicies').properties.policy.rules;
      expect(rules.map((r: any) => [r.definition.filters.prefixMatch, r.definition.actions.baseBlob.delete.daysAfterModificationGreaterThan])).toEqual([
        [["[format('{0}/', variables('chartCacheContainer'))]"], 1],
        [["[format('{0}/', variables('reportsContainer'))]"], "[parameters('reportRetentionDays')]"],
      ]);
      expect(main.parameters.reportRetentionDays.defaultValue).toBe(90);
      expect(parametersFile().reportRetentionDays.value).toBe('${REPORT_RETENTION_DAYS:=90}');
    });

    it("deploys each app from the container it creates for it in the app's own host account", () => {
      expect(moduleDeployment(main, 'hostStorage').properties.parameters.deploymentContainer.value).toBe(
        "[format('deploy-{0}', variables('apps')[copyIndex()].name)]",
      );
      expect(moduleTemplate(main, 'hostStorage').outputs!.deploymentContainerUrl.value).toBe(
        "[format('{0}{1}', reference(resourceId('Microsoft.Storage/storageAccounts', parameters('name')), '2025-06-01').primaryEndpoints.blob, concat(variables('hostContainers'), createArray(parameters('deploymentContainer')))[length(variables('hostContainers'))])]",
      );
      expect(moduleDeployment(main, 'functionApps').properties.parameters.deploymentContainerUrl.value).toMatch(
        /^\[reference\(.*'host-storage-\{0\}'.*\.outputs\.deploymentContainerUrl\.value\]$/,
      );
    });
  });

  describe('logs and monitoring', () => {
    const diagnosticScopes = (template: ArmTemplate) => resourcesOfType(template, 'Microsoft.Insights/diagnosticSettings').map((r) => r.scope);

    it('sends Key Vault, SQL auditing and Storage logs to the Log Analytics workspace', () => {
      expect(diagnosticScopes(moduleTemplate(main, 'key-vault'))).toEqual(["[resourceId('Microsoft.KeyVault/vaults', parameters('name'))]"]);
      const sql = moduleTemplate(main, 'sql');
      expect(diagnosticScopes(sql)).toEqual(["[resourceId('Microsoft.Sql/servers/databases', parameters('serverName'), 'master')]"]);
      const auditing = resourceOfType(sql, 'Microsoft.Sql/servers/auditingSettings').properties;
      expect(auditing.isAzureMonitorTargetEnabled).toBe(true);
      expect(resourceOfType(sql, 'Microsoft.Insights/diagnosticSettings').properties.logs).toEqual([{ category: 'SQLSecurityAuditEvents', enabled: true }]);
      expect(diagnosticScopes(moduleTemplate(main, 'hostStorage')).sort()).toEqual([
        "[resourceId('Microsoft.Storage/storageAccounts/blobServices', parameters('name'), 'default')]",
        "[resourceId('Microsoft.Storage/storageAccounts/tableServices', parameters('name'), 'default')]",
      ]);
      expect(diagnosticScopes(moduleTemplate(main, 'storage')).sort()).toEqual([
        "[resourceId('Microsoft.Storage/storageAccounts/blobServices', parameters('name'), 'default')]",
        "[resourceId('Microsoft.Storage/storageAccounts/queueServices', parameters('name'), 'default')]",
        "[resourceId('Microsoft.Storage/storageAccounts/tableServices', parameters('name'), 'default')]",
      ]);
    });

    it('tests every service for availability through its health route without the SQL check, with an alert on each', () => {
      const [checks] = moduleDeployment(main, 'alerts').properties.parameters.healthChecks.copy;
      expect(checks.count).toBe("[length(variables('serviceNames'))]");
      expect(checks.input).toMatch(
        /^\[createObject\('service', variables\('serviceNames'\)\[copyIndex\('value'\)\], 'url', format\('\{0\}\/health\?skip=sql', createObject\(/,
      );
      for (const service of ['identity', 'payment', 'orchestrator', 'visual'])
        expect(checks.input).toContain(`'${service}', format('https://{0}/${service}', `);
      expect(main.variables!.serviceNames).toEqual(['identity', 'payment', 'orchestrator', 'visual']);
      const alerts = moduleTemplate(main, 'alerts');
      expect(alerts.resources.map((r) => r.type).sort()).toEqual([
        'Microsoft.Consumption/budgets',
        'Microsoft.Insights/actionGroups',
        'Microsoft.Insights/metricAlerts',
        'Microsoft.Insights/scheduledQueryRules',
        'Microsoft.Insights/scheduledQueryRules',
        'Microsoft.Insights/webtests',
      ]);
      expect(resourceOfType(alerts, 'Microsoft.Insights/webtests').properties.Request.RequestUrl).toBe("[parameters('healthChecks')[copyIndex()].url]");
    });

    it('has no budget by default; with BUDGET_AMOUNT, one on the resource group mailing the action group at 80 % and 100 % actual and 100 % forecast', () => {
      const alerts = moduleTemplate(main, 'alerts');
      const budget = resourceOfType(alerts, 'Microsoft.Consumption/budgets');
      const scopeWith = (given: Record<string, unknown>) =>
        moduleScope(moduleDeployment(main, 'alerts'), topScope(main, { principalId: 'deployer', ...given }));
      expect(instances(budget, scopeWith({}))).toEqual([]);
      expect(parametersFile().budgetAmount.value).toBe('${BUDGET_AMOUNT:=0}');
      const [on] = instances(budget, scopeWith({ budgetAmount: 150, budgetStartDate: '2026-12-01' }));
      const properties = evaluate(budget.properties, on);
      expect(properties).toMatchObject({ category: 'Cost', amount: 150, timeGrain: 'Monthly', timePeriod: { startDate: '2026-12-01' } });
      expect(Object.values(properties.notifications).map((n: any) => [n.thresholdType, n.threshold, n.contactGroups.length])).toEqual([
        ['Actual', 80, 1],
        ['Actual', 100, 1],
        ['Forecasted', 100, 1],
      ]);
      // Without a start date, the month of the deployment (utcNow, only allowed as a parameter default).
      expect(main.parameters.deploymentMonth.defaultValue).toBe("[utcNow('yyyy-MM-01')]");
      expect(evaluate(budget.properties.timePeriod.startDate, scopeWith({ budgetAmount: 150, deploymentMonth: '2027-01-01' }))).toBe('2027-01-01');
    });

    // Max concurrent workers (and logins) of the serverless SKUs, from "Single database vCore resource
    // limits" (learn.microsoft.com/azure/azure-sql/database/resource-limits-vcore-single-databases).
    const SQL_WORKERS: Record<string, number> = { GP_S_Gen5_1: 75, GP_S_Gen5_2: 150, GP_S_Gen5_4: 300 };

    it("keeps the SQL apps' connections within the database's workers: apps x instances x SQL_POOL_MAX, split or in one app", () => {
      const deployment = moduleDeployment(main, 'functionApps');
      for (const singleApp of [false, true]) {
        const top = topScope(main, { principalId: 'deployer', singleApp });
        const apps = instances(deployment, top).map((at) => ({
          name: parameterValue(deployment.properties.parameters.azdServiceName, at) as string,
          instances: parameterValue(deployment.properties.parameters.maximumInstanceCount, at) as number,
          sql: (evaluate(main.variables!.appAccess, top) as { sql: boolean }[])[at.copyIndex['']].sql,
        }));
        const connections = apps.filter((app) => app.sql).reduce((sum, app) => sum + app.instances * (top.parameters.sqlPoolMax as number), 0);
        expect(connections).toBeLessThanOrEqual(SQL_WORKERS[top.parameters.sqlSkuName as string]);
        if (!singleApp) expect(apps.find((app) => app.name === 'visual')!.instances).toBe(100);
      }
      expect(main.parameters.sqlAppMaximumInstanceCount.defaultValue).toBe(10);
    });

    it('lets the serverless database pause: 60 idle minutes by default, passed to the database', () => {
      expect(main.parameters.sqlAutoPauseDelayMinutes.defaultValue).toBe(60);
      expect(main.parameters.sqlSkuName.defaultValue).toBe('GP_S_Gen5_2');
      const database = resourceOfType(moduleTemplate(main, 'sql'), 'Microsoft.Sql/servers/databases');
      expect(database.properties).toContain("parameters('autoPauseDelayMinutes')");
    });
  });

  describe('sign-in email (Azure Communication Services)', () => {
    let email: ArmTemplate;
    beforeAll(() => {
      email = moduleTemplate(main, 'email');
    });

    /** The email module's resources as deployed with these main.bicep parameters: type -> evaluated names and properties. */
    const deployed = (given: Record<string, unknown>) => {
      const scope = moduleScope(moduleDeployment(main, 'email'), topScope(main, { principalId: 'deployer', ...given }));
      return {
        resources: email.resources.flatMap((r) =>
          instances(r, scope).map((at) => ({ type: r.type, name: evaluate(r.name, at) as string, properties: evaluate(r.properties, at) })),
        ),
        from: evaluate(email.outputs!.from.value, scope) as string,
        records: email.outputs!.verificationRecords.value as string,
      };
    };
    const ofType = (resources: { type: string; name: string; properties: any }[], type: string) =>
      resources.filter((r) => r.type === `Microsoft.Communication/${type}`);

    it('by default (a trial): an email service, its Azure-managed domain and sender, and a communication service linked to it, with keys disabled', () => {
      const { resources, from } = deployed({});
      expect(resourceOfType(email, 'Microsoft.Communication/emailServices').location).toBe('global');
      expect(ofType(resources, 'emailServices/domains')).toEqual([
        expect.objectContaining({
          name: 'email-token/AzureManagedDomain',
          properties: { domainManagement: 'AzureManaged', userEngagementTracking: 'Disabled' },
        }),
      ]);
      expect(ofType(resources, 'emailServices/domains/senderUsernames').map((r: any) => r.properties)).toEqual([
        { username: 'DoNotReply', displayName: 'Report Platform' },
      ]);
      const [communication] = ofType(resources, 'communicationServices') as any[];
      expect(communication.properties.linkedDomains).toEqual(['Microsoft.Communication/emailServices/domains/email-token/AzureManagedDomain']);
      expect(communication.properties.disableLocalAuth).toBe(true);
      expect(from).toMatch(/^displayName\(.*\/AzureManagedDomain\/donotreply\) <username\(.*\)@mailFromSenderDomain\(.*\/AzureManagedDomain\)>$/);
    });

    it('with a custom domain: creates it (CustomerManaged) for its DNS records, keeps sending from the managed domain until it is verified, then links it and sends from it', () => {
      const first = deployed({ emailCustomDomain: 'mail.example.com' });
      expect(ofType(first.resources, 'emailServices/domains').map((r: any) => [r.name, r.properties.domainManagement])).toEqual([
        ['email-token/AzureManagedDomain', 'AzureManaged'],
        ['email-token/mail.example.com', 'CustomerManaged'],
      ]);
      expect((ofType(first.resources, 'communicationServices')[0] as any).properties.linkedDomains).toEqual([
        'Microsoft.Communication/emailServices/domains/email-token/AzureManagedDomain',
      ]);
      const verified = deployed({ emailCustomDomain: 'mail.example.com', emailCustomDomainVerified: true });
      expect(ofType(verified.resources, 'emailServices/domains').map((r) => r.name)).toEqual(['email-token/mail.example.com']);
      expect(ofType(verified.resources, 'emailServices/domains/senderUsernames').map((r) => r.name)).toEqual(['email-token/mail.example.com/donotreply']);
      expect((ofType(verified.resources, 'communicationServices')[0] as any).properties.linkedDomains).toEqual([
        'Microsoft.Communication/emailServices/domains/email-token/mail.example.com',
      ]);
      expect(verified.from).toMatch(/^displayName\(.*\/mail\.example\.com\/donotreply\) <username\(.*\)@mail\.example\.com>$/);
      // The DNS records to create come out of the deployment (main.bicep's EMAIL_DOMAIN_DNS_RECORDS).
      expect(first.records).toBe(
        "[if(empty(parameters('customDomain')), createObject(), reference(resourceId('Microsoft.Communication/emailServices/domains', format('email-{0}', parameters('nameSuffix')), if(empty(parameters('customDomain')), 'unused', parameters('customDomain'))), '2025-05-01').verificationRecords)]",
      );
      expect(main.outputs!.EMAIL_DOMAIN_DNS_RECORDS.value).toMatch(/'email'\), '[\d-]+'\)\.outputs\.verificationRecords\.value\]$/);
    });

    it('sends the e-mail send and delivery logs to Log Analytics (an undelivered code can be found)', () => {
      const logs = resourcesOfType(email, 'Microsoft.Insights/diagnosticSettings');
      expect(logs.map((r) => [r.scope, r.properties.logs])).toEqual([
        [
          "[resourceId('Microsoft.Communication/communicationServices', format('acs-{0}', parameters('nameSuffix')))]",
          [
            { category: 'EmailSendMailOperational', enabled: true },
            { category: 'EmailStatusUpdateOperational', enabled: true },
          ],
        ],
      ]);
      expect(moduleDeployment(main, 'email').properties.parameters.logAnalyticsWorkspaceId.value).toMatch(
        /'monitoring'\), '[\d-]+'\)\.outputs\.workspaceId\.value\]$/,
      );
    });

    it("lets the sending apps' identities send: the Communication and Email Service Owner role on the communication service", () => {
      const assignment = resourceOfType(email, 'Microsoft.Authorization/roleAssignments');
      expect(email.variables!.communicationAndEmailServiceOwner).toBe('09976791-48a7-449e-bb21-39d1a415f350');
      expect(assignment.scope).toBe("[resourceId('Microsoft.Communication/communicationServices', format('acs-{0}', parameters('nameSuffix')))]");
      expect(assignment.properties).toEqual({
        roleDefinitionId: "[subscriptionResourceId('Microsoft.Authorization/roleDefinitions', variables('communicationAndEmailServiceOwner'))]",
        principalId: "[variables('senders')[copyIndex()]]",
        principalType: 'ServicePrincipal',
      });
      const senders = deployed({})
        .resources.filter((r) => r.type === 'Microsoft.Authorization/roleAssignments')
        .map((r: any) => r.properties.principalId);
      expect(senders).toEqual([
        'principalId(managed-identity-identity)',
        'principalId(managed-identity-payment)',
        'principalId(managed-identity-orchestrator)',
      ]);
    });

    it("gives every app that sends email (identity, payment, orchestrator) the endpoint and the sender's address (EMAIL_ACS_ENDPOINT, EMAIL_FROM)", () => {
      expect(email.outputs!.endpoint.value).toBe(
        "[format('https://{0}', reference(resourceId('Microsoft.Communication/communicationServices', format('acs-{0}', parameters('nameSuffix'))), '2025-05-01').hostName)]",
      );
      const params = moduleDeployment(main, 'appSettings').properties.parameters;
      expect(params.emailEndpoint.value).toMatch(/'email'\), '[\d-]+'\)\.outputs\.endpoint\.value\]$/);
      expect(params.emailFrom.value).toMatch(/'email'\), '[\d-]+'\)\.outputs\.from\.value\]$/);
      for (const service of ['identity', 'payment', 'orchestrator']) {
        const settings = moduleTemplate(main, 'appSettings').variables!.plainSettingsByService[service];
        expect(settings).toMatchObject({ EMAIL_ACS_ENDPOINT: "[parameters('emailEndpoint')]", EMAIL_FROM: "[parameters('emailFrom')]" });
      }
      expect(moduleTemplate(main, 'appSettings').variables!.plainSettingsByService.visual).not.toHaveProperty('EMAIL_ACS_ENDPOINT');
    });
  });

  describe('site configuration', () => {
    it("writes a site's web config only after its app settings (never both at once: 409 Conflict)", () => {
      const appSettings = moduleTemplate(main, 'appSettings');
      const [settings, web] = resourcesOfType(appSettings, 'Microsoft.Web/sites/config');
      expect([settings.name, web.name]).toEqual([
        "[format('{0}/{1}', parameters('appName'), 'appsettings')]",
        "[format('{0}/{1}', parameters('appName'), 'web')]",
      ]);
      expect(web.dependsOn).toEqual(["[resourceId('Microsoft.Web/sites/config', parameters('appName'), 'appsettings')]"]);
      expect(settings.dependsOn ?? []).toEqual([]);
    });

    it("sets each app's settings after every app exists, on the app of the same name", () => {
      const deployment = moduleDeployment(main, 'appSettings');
      expect(deployment.dependsOn).toContain('functionApps');
      expect(deployment.properties.parameters.appName.value).toBe("[variables('apps')[copyIndex()].appName]");
      expect(moduleDeployment(main, 'functionApps').properties.parameters.name.value).toBe("[variables('apps')[copyIndex()].appName]");
    });
  });
});
