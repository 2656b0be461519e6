// The whole platform in one resource group: Function App(s) on Flex Consumption, one user-assigned
// managed identity per app (each with only what its services use: main.bicep's serviceAccess), Storage, Azure SQL (Entra ID only), Key Vault, Log Analytics and Application Insights.
// Deploy with `azd up`, or `az deployment sub create -l <region> -f infra/main.bicep -p infra/main.parameters.json`.
targetScope = 'subscription'

@minLength(1)
@maxLength(64)
@description('Name of the environment (azd env name); part of every resource name.')
param environmentName string

@minLength(1)
@description('Azure region of every resource.')
param location string

@description('Deploy all four services in one Function App (SERVICES=identity,payment,orchestrator,visual) instead of one app per service.')
param singleApp bool = false

@description('Object id of the principal running the deployment (azd sets AZURE_PRINCIPAL_ID). It becomes the SQL Entra admin unless sqlAdminObjectId is given, and may write Key Vault secrets.')
param principalId string

@allowed([ 'User', 'ServicePrincipal', 'Group' ])
@description('Type of principalId (azd sets AZURE_PRINCIPAL_TYPE; the deploy workflow passes ServicePrincipal).')
param principalType string = 'User'

@description('Object id of the Entra ID group that administers Azure SQL (operators and the CI principal). Recommended whenever both people and CI deploy: without it the last deployer becomes the admin. Empty: the deploying principal.')
param sqlAdminObjectId string = ''

@description('Client (application) id of the deploying service principal. Azure SQL identifies a service principal admin by its client id, not by its object id (principalId), so a service principal deploying without sqlAdminObjectId must pass it (the deploy workflow passes AZURE_CLIENT_ID).')
param sqlAdminClientId string = ''

@description('Display name of the SQL Entra admin (for the portal; any label when using a group).')
param sqlAdminLogin string = 'platform-sql-admins'

@description('Azure SQL database SKU name, for example GP_S_Gen5_2 (serverless), S1 or GP_Gen5_2.')
param sqlSkuName string = 'GP_S_Gen5_2'

@description('Azure SQL database SKU tier matching sqlSkuName: GeneralPurpose, Standard, Premium, BusinessCritical, Hyperscale.')
param sqlSkuTier string = 'GeneralPurpose'

@description('Serverless only: minutes idle before the database pauses (-1 never pauses).')
param sqlAutoPauseDelayMinutes int = 60

@minValue(1)
@description('Azure SQL: most data the database may hold, in GB; billed for this size (32: the default of GP_S_Gen5_2).')
param sqlMaxSizeGb int = 32

@minValue(1)
@maxValue(1000)
@description('Flex Consumption: most instances of an app that never queries SQL (visual).')
param maximumInstanceCount int = 100

@minValue(1)
@maxValue(1000)
@description('Flex Consumption: most instances of each app that queries SQL (identity, payment, orchestrator). Each instance holds up to sqlPoolMax connections: keep apps x this x sqlPoolMax within the database\'s concurrent workers and logins (150 for GP_S_Gen5_2: 3 x 10 x 5).')
param sqlAppMaximumInstanceCount int = 10

@allowed([ 512, 2048, 4096 ])
@description('Flex Consumption: memory of each instance.')
param instanceMemoryMB int = 2048

@minValue(1)
@maxValue(100)
@description('SQL connections per instance (SQL_POOL_MAX). Every instance of every app has its own pool: keep instances x apps x this under the database tier\'s session limit.')
param sqlPoolMax int = 5

@description('Orchestrator AI endpoint (ORCHESTRATOR_AI_ENDPOINT): an OpenAI-compatible base URL or an Azure OpenAI resource endpoint. Empty: reports are written offline.')
param orchestratorAiEndpoint string = ''

@allowed([ '', 'offline', 'openai', 'azure-openai' ])
@description('Orchestrator AI provider (ORCHESTRATOR_AI_PROVIDER). Empty: openai when an endpoint is given, offline otherwise. azure-openai signs in with the managed identity unless the orchestrator-ai-api-key secret holds a key.')
param orchestratorAiProvider string = ''

@description('Orchestrator AI model, or the Azure OpenAI deployment name (ORCHESTRATOR_AI_MODEL).')
param orchestratorAiModel string = 'gpt-4o-mini'

@description('Email of the first super admin, created by identity at start-up when absent. Empty: create one with `npm run users`.')
param bootstrapAdminEmail string = ''

@description('Purge protection for Key Vault. Turn on for production; a purge-protected vault name cannot be reused for 90 days after deletion.')
param keyVaultPurgeProtection bool = false

@description('Email address alerts are sent to (the action group). Empty: alerts fire and show in the portal only.')
param alertEmail string = ''

@description('Comma list of browser origins (https://host[:port]) allowed to call the APIs cross-origin, besides the console\'s own (the orchestrator app\'s origin, always allowed). Feeds both CORS_ALLOWED_ORIGINS and the platform\'s CORS.')
param corsAllowedOrigins string = ''

var extraCorsOrigins = filter(map(split(corsAllowedOrigins, ','), origin => trim(origin)), origin => !empty(origin))

@minValue(1)
@description('Generated reports are deleted this many days after they were written (a lifecycle rule on the reports container).')
param reportRetentionDays int = 90

@description('Where Azure Communication Services keeps the sign-in emails at rest: a geography such as United States, Europe or UK.')
param emailDataLocation string = 'United States'

@description('Display name of the sign-in emails\' sender.')
param emailSenderDisplayName string = 'Report Platform'

@description('Custom sending domain, such as mail.example.com (docs/deploy.md, "Sign-in e-mail"). Empty: an Azure-managed domain, limited to 5 e-mails a minute and 10 an hour: a trial only.')
param emailCustomDomain string = ''

@description('The custom domain\'s DNS records are in place and Azure verified them: send from it. Set after the first deployment with emailCustomDomain printed the records.')
param emailCustomDomainVerified bool = false

@minValue(-1)
@description('Log Analytics daily ingestion cap in GB (-1: none). A runaway log loop then costs at most this a day; beyond it logs, and the alerts reading them, stop until midnight UTC.')
param logDailyCapGb int = 2

@minValue(0)
@description('Monthly cost budget of the resource group (billing currency); an alert mails the action group at 80 % and 100 % of it, and when the forecast passes it. 0: no budget.')
param budgetAmount int = 0

@description('First day of the budget\'s first month, yyyy-MM-01 (BUDGET_START_DATE). Empty: the month of this deployment.')
param budgetStartDate string = ''

@description('The first day of the month of this deployment (leave the default).')
param deploymentMonth string = utcNow('yyyy-MM-01')

@allowed([ 300, 900 ])
@description('Seconds between two runs of each availability test (each run from every location is billed).')
param availabilityTestFrequency int = 900

@minLength(1)
@description('Availability test locations (Application Insights location ids); the alert fires when 2 of them fail.')
param availabilityTestLocations array = [ 'emea-nl-ams-azr', 'us-va-ash-azr', 'apac-sg-sin-azr' ]

@description('Application Insights accepts only Entra ID authenticated telemetry. Turn on only when every sender authenticates with the managed identity (docs/deploy.md, Decisions); a sender using the connection string alone is refused and its telemetry lost.')
param appInsightsLocalAuthDisabled bool = false

// The SQL Entra admin: the group when given, otherwise the deployer. Azure SQL names a service
// principal admin 'Application' and identifies it by client id. Each branch is spelled out so the
// module's @allowed([ 'User', 'Group', 'Application' ]) accepts every possible value.
var sqlAdminPrincipalType = !empty(sqlAdminObjectId) ? 'Group' : (principalType == 'User' ? 'User' : (principalType == 'Group' ? 'Group' : 'Application'))
var sqlAdminSid = !empty(sqlAdminObjectId) ? sqlAdminObjectId : (principalType == 'ServicePrincipal' ? sqlAdminClientId : principalId)

var serviceNames = [ 'identity', 'payment', 'orchestrator', 'visual' ]
var resourceToken = toLower(uniqueString(subscription().id, environmentName, location))
var tags = { 'azd-env-name': environmentName }
// One Function App per service, or one serving all four; `services` becomes the app's SERVICES setting.
// Each app's name is known before deployment (not read from a module output), so the app-settings
// modules target a fixed site when the deployment is planned (what-if shows their changes).
// Each app's own storage account (its AzureWebJobsStorage, host-storage.bicep) is named with a short
// form of the app's name: a storage account name has at most 24 lower-case letters and digits.
var appShortNames = {
  identity: 'id'
  payment: 'pay'
  orchestrator: 'orch'
  visual: 'vis'
  platform: 'all'
}
var apps = map(singleApp ? [ { name: 'platform', services: serviceNames } ] : map(serviceNames, name => { name: name, services: [ name ] }), app => union(app, { appName: 'func-${app.name}-${resourceToken}', hostStorageName: 'sth${appShortNames[app.name]}${resourceToken}' }))
// Index in `apps` of the app serving each service.
var appIndex = {
  identity: 0
  payment: singleApp ? 0 : 1
  orchestrator: singleApp ? 0 : 2
  visual: singleApp ? 0 : 3
}

// What each service's code uses, and nothing else: the Key Vault secrets it reads (its settings' Key
// Vault references, app-settings.bicep), the blob containers, queues and tables it reads or writes
// (its settings' defaults, storage.bicep), whether it makes user delegation keys (SAS links), queries
// SQL, or sends e-mail. An app's identity gets the union over the services it serves, plus its own
// host storage account (the Functions host's containers and its deployment package,
// host-storage.bicep), which no other identity may use. docs/deploy.md, "Permissions"
// has this as a table; tests/infra/permissions.test.ts holds the table, this and the code together.
var serviceAccess = {
  identity: {
    secrets: [ 'jwt-signing-keys', 'service-token-secret', 'service-token-secret-previous', 'otp-hmac-key', 'smtp-url' ]
    containers: []
    queues: []
    tables: []
    delegationKey: false
    sql: true
    email: true
  }
  payment: {
    secrets: [ 'auth-admin-token', 'stripe-secret-key', 'stripe-webhook-secret', 'smtp-url' ]
    containers: []
    queues: []
    tables: [ 'paymentfailedsyncs', 'sqlwork' ]
    delegationKey: false
    sql: true
    email: true
  }
  orchestrator: {
    secrets: [ 'visual-api-token', 'orchestrator-ai-api-key', 'smtp-url' ]
    containers: [ 'reports' ]
    queues: [ 'report-executions', 'report-executions-poison' ]
    tables: [ 'sqlwork' ]
    delegationKey: true
    sql: true
    email: true
  }
  visual: {
    secrets: [ 'visual-api-token', 'quickchart-api-key' ]
    containers: [ 'chart-cache' ]
    queues: []
    tables: []
    delegationKey: false
    sql: false
    email: false
  }
}
var appAccess = map(apps, app => {
  app: app.name
  secrets: reduce(app.services, [], (acc, service) => union(acc, serviceAccess[service].secrets))
  containers: reduce(app.services, [], (acc, service) => union(acc, serviceAccess[service].containers))
  queues: reduce(app.services, [], (acc, service) => union(acc, serviceAccess[service].queues))
  tables: reduce(app.services, [], (acc, service) => union(acc, serviceAccess[service].tables))
  delegationKey: contains(map(app.services, service => serviceAccess[service].delegationKey), true)
  sql: contains(map(app.services, service => serviceAccess[service].sql), true)
  email: contains(map(app.services, service => serviceAccess[service].email), true)
})

resource rg 'Microsoft.Resources/resourceGroups@2025-04-01' = {
  name: 'rg-${environmentName}'
  location: location
  tags: tags
}

// One identity per app: a compromised app (visual parses untrusted chart, SVG, DOT and Typst input)
// holds only its own app's rights.
module identities 'modules/managed-identity.bicep' = [for app in apps: {
  name: 'managed-identity-${app.name}'
  scope: rg
  params: {
    name: 'id-${app.name}-${resourceToken}'
    location: location
    tags: tags
  }
}]


module monitoring 'modules/monitoring.bicep' = {
  name: 'monitoring'
  scope: rg
  params: {
    logAnalyticsName: 'log-${resourceToken}'
    appInsightsName: 'appi-${resourceToken}'
    location: location
    tags: tags
    identityPrincipalIds: [for (app, i) in apps: identities[i].outputs.principalId]
    disableLocalAuth: appInsightsLocalAuthDisabled
    dailyCapGb: logDailyCapGb
  }
}

module storage 'modules/storage.bicep' = {
  name: 'storage'
  scope: rg
  params: {
    name: 'st${resourceToken}'
    location: location
    tags: tags
    // Each app's access (appAccess) with the principal id of its identity.
    grants: [for (app, i) in apps: union(appAccess[i], { principalId: identities[i].outputs.principalId })]
    reportRetentionDays: reportRetentionDays
    logAnalyticsWorkspaceId: monitoring.outputs.workspaceId
  }
}

// Each app's own AzureWebJobsStorage (host keys, timer locks, its deployment package): a compromised
// app cannot touch another app's host keys or code.
module hostStorage 'modules/host-storage.bicep' = [for (app, i) in apps: {
  name: 'host-storage-${app.name}'
  scope: rg
  params: {
    name: app.hostStorageName
    location: location
    tags: tags
    principalId: identities[i].outputs.principalId
    deploymentContainer: 'deploy-${app.name}'
    logAnalyticsWorkspaceId: monitoring.outputs.workspaceId
  }
}]

module keyVault 'modules/key-vault.bicep' = {
  name: 'key-vault'
  scope: rg
  params: {
    name: 'kv-${resourceToken}'
    location: location
    tags: tags
    deployerPrincipalId: principalId
    deployerPrincipalType: principalType
    purgeProtection: keyVaultPurgeProtection
    logAnalyticsWorkspaceId: monitoring.outputs.workspaceId
  }
}

module sql 'modules/sql.bicep' = {
  name: 'sql'
  scope: rg
  params: {
    serverName: 'sql-${resourceToken}'
    databaseName: 'platform'
    location: location
    tags: tags
    adminSid: sqlAdminSid
    adminLogin: sqlAdminLogin
    adminPrincipalType: sqlAdminPrincipalType
    skuName: sqlSkuName
    skuTier: sqlSkuTier
    autoPauseDelayMinutes: sqlAutoPauseDelayMinutes
    maxSizeGb: sqlMaxSizeGb
    logAnalyticsWorkspaceId: monitoring.outputs.workspaceId
  }
}

module functionApps 'modules/function-app.bicep' = [for (app, i) in apps: {
  name: 'function-app-${app.name}'
  scope: rg
  params: {
    name: app.appName
    azdServiceName: app.name
    location: location
    tags: tags
    identityId: identities[i].outputs.id
    deploymentContainerUrl: hostStorage[i].outputs.deploymentContainerUrl
    // The SQL connection budget: instances of the apps that query SQL are what uses it up.
    maximumInstanceCount: appAccess[i].sql ? sqlAppMaximumInstanceCount : maximumInstanceCount
    instanceMemoryMB: instanceMemoryMB
  }
}]

var serviceUrls = {
  identity: 'https://${functionApps[appIndex.identity].outputs.defaultHostName}/identity'
  payment: 'https://${functionApps[appIndex.payment].outputs.defaultHostName}/payment'
  orchestrator: 'https://${functionApps[appIndex.orchestrator].outputs.defaultHostName}/orchestrator'
  visual: 'https://${functionApps[appIndex.visual].outputs.defaultHostName}/visual'
}

module alerts 'modules/alerts.bicep' = {
  name: 'alerts'
  scope: rg
  params: {
    nameSuffix: resourceToken
    location: location
    tags: tags
    appInsightsId: monitoring.outputs.id
    alertEmail: alertEmail
    appNames: [for (app, i) in apps: functionApps[i].outputs.name]
    // Without the SQL check: a probe every 5 minutes would keep a serverless database from pausing.
    healthChecks: [for service in serviceNames: { service: service, url: '${serviceUrls[service]}/health?skip=sql' }]
    testFrequency: availabilityTestFrequency
    testLocations: availabilityTestLocations
    budgetAmount: budgetAmount
    budgetStartDate: empty(budgetStartDate) ? deploymentMonth : budgetStartDate
  }
}

module email 'modules/email.bicep' = {
  name: 'email'
  scope: rg
  params: {
    nameSuffix: resourceToken
    tags: tags
    dataLocation: emailDataLocation
    senderPrincipalIds: [for (app, i) in apps: appAccess[i].email ? identities[i].outputs.principalId : '']
    senderDisplayName: emailSenderDisplayName
    senderUsername: 'DoNotReply'
    customDomain: emailCustomDomain
    customDomainVerified: emailCustomDomainVerified
    logAnalyticsWorkspaceId: monitoring.outputs.workspaceId
  }
}

// Set after every app exists, because an app's settings name the other apps' URLs.
module appSettings 'modules/app-settings.bicep' = [for (app, i) in apps: {
  name: 'app-settings-${app.name}'
  scope: rg
  dependsOn: [ functionApps ]
  params: {
    appName: app.appName
    services: app.services
    serviceUrls: serviceUrls
    keyVaultUri: keyVault.outputs.uri
    hostStorageAccountName: hostStorage[i].outputs.name
    dataStorageAccountName: storage.outputs.name
    dataQueueEndpoint: storage.outputs.queueEndpoint
    identityClientId: identities[i].outputs.clientId
    sqlServerFqdn: sql.outputs.serverFqdn
    sqlDatabaseName: sql.outputs.databaseName
    appInsightsConnectionString: monitoring.outputs.connectionString
    bootstrapAdminEmail: bootstrapAdminEmail
    sqlPoolMax: sqlPoolMax
    orchestratorAiEndpoint: orchestratorAiEndpoint
    orchestratorAiProvider: orchestratorAiProvider
    orchestratorAiModel: orchestratorAiModel
    reportQueue: storage.outputs.reportQueue
    emailEndpoint: email.outputs.endpoint
    emailFrom: email.outputs.from
    // The console is served by the orchestrator app and calls identity and payment, which may be other apps.
    corsAllowedOrigins: union(extraCorsOrigins, ['https://${functionApps[appIndex.orchestrator].outputs.defaultHostName}'])
  }
}]

// Outputs become azd environment values (read by the postprovision hook, scripts/postprovision.ts). Nothing secret here.
output AZURE_LOCATION string = location
output AZURE_TENANT_ID string = tenant().tenantId
output AZURE_SUBSCRIPTION_ID string = subscription().subscriptionId
output AZURE_RESOURCE_GROUP string = rg.name
output AUTH_URL string = serviceUrls.identity
output PAYMENT_URL string = serviceUrls.payment
output BASE_URL string = serviceUrls.orchestrator
output VISUAL_URL string = serviceUrls.visual
output FUNCTION_APP_IDENTITY string = functionApps[appIndex.identity].outputs.name
output FUNCTION_APP_PAYMENT string = functionApps[appIndex.payment].outputs.name
output FUNCTION_APP_ORCHESTRATOR string = functionApps[appIndex.orchestrator].outputs.name
output FUNCTION_APP_VISUAL string = functionApps[appIndex.visual].outputs.name
output AZURE_KEY_VAULT_NAME string = keyVault.outputs.name
output AZURE_KEY_VAULT_ENDPOINT string = keyVault.outputs.uri
// Who reads which secret: per app, its identity's principal id and the secrets its services read
// (appAccess). The command that writes a secret grants its readers Key Vault Secrets User on that
// secret alone (scripts/secret-readers.ts): no deployment can, since a secret may not exist yet.
output KEY_VAULT_READERS array = [for (app, i) in apps: { app: app.name, principalId: identities[i].outputs.principalId, secrets: appAccess[i].secrets }]
output AZURE_STORAGE_ACCOUNT_NAME string = storage.outputs.name
output SQL_SERVER_NAME string = sql.outputs.serverName
output SQL_SERVER string = sql.outputs.serverFqdn
output SQL_DATABASE string = sql.outputs.databaseName
// The identities that are database users, `name:clientId` ('' for an app that never queries SQL,
// visual): the postprovision hook grants each (npm run migrate -- --grant).
output SQL_APP_IDENTITIES array = [for (app, i) in apps: appAccess[i].sql ? '${identities[i].outputs.name}:${identities[i].outputs.clientId}' : '']
// The orchestrator's identity, which an Azure OpenAI resource must trust (docs/deploy.md, "AI").
output ORCHESTRATOR_IDENTITY_PRINCIPAL_ID string = identities[appIndex.orchestrator].outputs.principalId
output EMAIL_ENDPOINT string = email.outputs.endpoint
output EMAIL_FROM string = email.outputs.from
// With emailCustomDomain: the DNS records to create at your DNS host (docs/deploy.md, "Sign-in e-mail").
output EMAIL_DOMAIN_DNS_RECORDS object = email.outputs.verificationRecords
