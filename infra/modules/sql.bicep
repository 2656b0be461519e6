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

var serverless = contains(skuName, '_S_')

resource server 'Microsoft.Sql/servers@2023-08-01-preview' = {
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
resource allowAzureServices 'Microsoft.Sql/servers/firewallRules@2023-08-01-preview' = {
  parent: server
  name: 'AllowAllWindowsAzureIps'
  properties: {
    startIpAddress: '0.0.0.0'
    endIpAddress: '0.0.0.0'
  }
}

resource database 'Microsoft.Sql/servers/databases@2023-08-01-preview' = {
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
  }, serverless ? {
    autoPauseDelay: autoPauseDelayMinutes
    minCapacity: json('0.5')
  } : {})
}

output serverName string = server.name
output serverFqdn string = server.properties.fullyQualifiedDomainName
output databaseName string = database.name
