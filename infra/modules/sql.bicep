// Azure SQL logical server with Entra ID only authentication, and the platform database.
// The apps' managed identity becomes a database user when migrations run (scripts/migrate.ts --grant).
param serverName string
param databaseName string
param location string
param tags object
@description('Entra ID admin: the object id of a user or a group (of operators and the CI principal), or the client (application) id of a service principal. Empty is refused: a service principal deploying without a group must pass its client id (main.bicep sqlAdminClientId).')
@minLength(36)
@maxLength(36)
param adminSid string
param adminLogin string
@allowed([ 'User', 'Group', 'Application' ])
param adminPrincipalType string
param skuName string
param skuTier string
@description('Serverless SKUs only (name contains _S_): minutes idle before pausing; -1 never pauses.')
param autoPauseDelayMinutes int
@description('Most data the database may hold, in GB (vCore databases are billed for this size, not for what is used).')
param maxSizeGb int
@description('Log Analytics workspace receiving the server\'s audit log.')
param logAnalyticsWorkspaceId string

var serverless = contains(skuName, '_S_')

resource server 'Microsoft.Sql/servers@2025-01-01' = {
  name: serverName
  location: location
  tags: tags
  properties: {
    minimalTlsVersion: '1.2'
    publicNetworkAccess: 'Enabled'
    administrators: {
      administratorType: 'ActiveDirectory'
      azureADOnlyAuthentication: true
      login: adminLogin
      sid: adminSid
      tenantId: tenant().tenantId
      principalType: adminPrincipalType
    }
  }
}

// Lets Azure services (the Function Apps on Flex Consumption without a VNet) reach the server;
// authentication is still Entra ID only.
resource allowAzureServices 'Microsoft.Sql/servers/firewallRules@2025-01-01' = {
  parent: server
  name: 'AllowAllWindowsAzureIps'
  properties: {
    startIpAddress: '0.0.0.0'
    endIpAddress: '0.0.0.0'
  }
}

resource database 'Microsoft.Sql/servers/databases@2025-01-01' = {
  parent: server
  name: databaseName
  location: location
  tags: tags
  sku: {
    name: skuName
    tier: skuTier
  }
  properties: union({
    collation: 'SQL_Latin1_General_CP1_CI_AS'
    zoneRedundant: false
    maxSizeBytes: maxSizeGb * 1024 * 1024 * 1024
  }, serverless ? {
    autoPauseDelay: autoPauseDelayMinutes
    minCapacity: json('0.5')
  } : {})
}

// Auditing to Log Analytics: sign-ins (successful and failed) and changes to principals, roles,
// permissions and schema. Not every query batch (BATCH_COMPLETED_GROUP): that would log each
// statement the apps send, with its data, at a cost that grows with traffic.
resource auditing 'Microsoft.Sql/servers/auditingSettings@2025-01-01' = {
  parent: server
  name: 'default'
  properties: {
    state: 'Enabled'
    isAzureMonitorTargetEnabled: true
    auditActionsAndGroups: [
      'SUCCESSFUL_DATABASE_AUTHENTICATION_GROUP'
      'FAILED_DATABASE_AUTHENTICATION_GROUP'
      'DATABASE_PRINCIPAL_CHANGE_GROUP'
      'DATABASE_ROLE_MEMBER_CHANGE_GROUP'
      'DATABASE_PERMISSION_CHANGE_GROUP'
      'DATABASE_OBJECT_CHANGE_GROUP'
      'SCHEMA_OBJECT_CHANGE_GROUP'
    ]
  }
}

// Server audit events are sent through the master database's diagnostic setting.
resource master 'Microsoft.Sql/servers/databases@2025-01-01' existing = {
  parent: server
  name: 'master'
}

// The newest diagnosticSettings API is this preview (the linter's only other choice, 2016-09-01, is the
// legacy service-level type, not an extension of a resource).
#disable-next-line use-recent-api-versions
resource auditToLogAnalytics 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  scope: master
  name: 'sql-audit-to-log-analytics'
  properties: {
    workspaceId: logAnalyticsWorkspaceId
    logs: [ { category: 'SQLSecurityAuditEvents', enabled: true } ]
  }
}

output serverName string = server.name
output serverFqdn string = server.properties.fullyQualifiedDomainName
output databaseName string = database.name
