// One Function App's own storage account (its AzureWebJobsStorage): the Functions host's containers
// (azure-webjobs-hosts: timer schedules and locks; azure-webjobs-secrets: host keys, the master key
// among them), the host's diagnostic-events table, and the app's deployment package. One account per
// app, so no app's identity can read or overwrite another app's host keys, locks or code: each
// identity has data roles on its own host account only. The platform's data (chart cache, reports,
// the report queue, the tables) stays in the shared data account (storage.bicep), reached through
// the PLATFORM_STORAGE__* settings. Reached only with Entra ID (no shared keys).
param name string
param location string
param tags object
@description('Principal id of the app\'s identity: the only one with data roles here.')
param principalId string
@description('The Flex Consumption deployment-package container of the app.')
param deploymentContainer string
@description('Log Analytics workspace receiving the blob and table write and delete logs.')
param logAnalyticsWorkspaceId string

// The Functions host's own containers. The Bicep creates them, so the host need not.
var hostContainers = [ 'azure-webjobs-hosts', 'azure-webjobs-secrets' ]

var roles = {
  blobDataContributor: 'ba92f5b4-2d11-453d-a403-e96b0029c9fe'
  // The host's diagnostic events (AzureFunctionsDiagnosticEvents<yyyymm>, a table it creates).
  tableDataContributor: '0a9a7e1f-b9d0-4cc4-a60d-0319b160aaa3'
}

resource account 'Microsoft.Storage/storageAccounts@2025-06-01' = {
  name: name
  location: location
  tags: tags
  kind: 'StorageV2'
  sku: { name: 'Standard_LRS' }
  properties: {
    allowSharedKeyAccess: false
    defaultToOAuthAuthentication: true
    allowBlobPublicAccess: false
    minimumTlsVersion: 'TLS1_2'
    supportsHttpsTrafficOnly: true
    publicNetworkAccess: 'Enabled'
  }
}

resource blobs 'Microsoft.Storage/storageAccounts/blobServices@2025-06-01' = {
  parent: account
  name: 'default'
}

resource containers 'Microsoft.Storage/storageAccounts/blobServices/containers@2025-06-01' = [for container in concat(hostContainers, [ deploymentContainer ]): {
  parent: blobs
  name: container
  properties: { publicAccess: 'None' }
}]

resource tables 'Microsoft.Storage/storageAccounts/tableServices@2025-06-01' = {
  parent: account
  name: 'default'
}

// On the whole account, which is this app's alone: what Microsoft's guidance for an identity-based
// AzureWebJobsStorage asks (blobs; the diagnostic-events table), and nothing on the queues (no
// trigger here reads this account's queues: the report queue's connection is PLATFORM_STORAGE).
resource appRoles 'Microsoft.Authorization/roleAssignments@2022-04-01' = [for role in [ roles.blobDataContributor, roles.tableDataContributor ]: {
  name: guid(account.id, principalId, role)
  scope: account
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', role)
    principalId: principalId
    principalType: 'ServicePrincipal'
  }
}]

// Who wrote and deleted what (a host key overwritten, a package replaced), as on the data account.
var storageLogs = [
  { category: 'StorageWrite', enabled: true }
  { category: 'StorageDelete', enabled: true }
]

// The newest diagnosticSettings API is this preview (the linter's only other choice, 2016-09-01, is the
// legacy service-level type, not an extension of a resource).
#disable-next-line use-recent-api-versions
resource blobLogs 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  scope: blobs
  name: 'to-log-analytics'
  properties: { workspaceId: logAnalyticsWorkspaceId, logs: storageLogs }
}

// The newest diagnosticSettings API is this preview (the linter's only other choice, 2016-09-01, is the
// legacy service-level type, not an extension of a resource).
#disable-next-line use-recent-api-versions
resource tableLogs 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  scope: tables
  name: 'to-log-analytics'
  properties: { workspaceId: logAnalyticsWorkspaceId, logs: storageLogs }
}

output name string = account.name
output blobEndpoint string = account.properties.primaryEndpoints.blob
// The deployment container's URL, after the container exists (the Function App deploys from it).
output deploymentContainerUrl string = '${account.properties.primaryEndpoints.blob}${containers[length(hostContainers)].name}'
