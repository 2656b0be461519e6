// Storage account reached only with Entra ID (no shared keys): the Functions host's own storage,
// the chart cache, the reports, the failed-sync table, the report execution queue and its poison
// queue, and one deployment-package container per Function App.
param name string
param location string
param tags object
@description('Principal id of the apps\' managed identity.')
param identityPrincipalId string
@description('Flex Consumption deployment-package containers, one per Function App.')
param deploymentContainers array
@minValue(1)
@description('Generated reports (PDFs, presentations) are deleted this many days after they were written.')
param reportRetentionDays int
@description('Log Analytics workspace receiving the blob, queue and table write and delete logs.')
param logAnalyticsWorkspaceId string

// Names the services use; keep in step with their settings' defaults (docs/deploy.md, "Storage").
var chartCacheContainer = 'chart-cache'
var reportsContainer = 'reports'
var failedSyncTable = 'paymentfailedsyncs'
var reportQueue = 'report-executions'

var roles = {
  blobDataOwner: 'b7e6dc6d-f1e8-4753-8033-0f276bb0955b'
  queueDataContributor: '974c5e8b-45b9-4653-ba55-5f855dd0fb88'
  tableDataContributor: '0a9a7e1f-b9d0-4cc4-a60d-0319b160aaa3'
}

resource account 'Microsoft.Storage/storageAccounts@2023-05-01' = {
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

resource blobs 'Microsoft.Storage/storageAccounts/blobServices@2023-05-01' = {
  parent: account
  name: 'default'
}

resource containers 'Microsoft.Storage/storageAccounts/blobServices/containers@2023-05-01' = [for container in concat([ chartCacheContainer, reportsContainer ], deploymentContainers): {
  parent: blobs
  name: container
  properties: { publicAccess: 'None' }
}]

resource queues 'Microsoft.Storage/storageAccounts/queueServices@2023-05-01' = {
  parent: account
  name: 'default'
}

// The Functions host moves a message to <queue>-poison after 5 failed dequeues.
resource reportQueues 'Microsoft.Storage/storageAccounts/queueServices/queues@2023-05-01' = [for queue in [ reportQueue, '${reportQueue}-poison' ]: {
  parent: queues
  name: queue
}]

resource tables 'Microsoft.Storage/storageAccounts/tableServices@2023-05-01' = {
  parent: account
  name: 'default'
}

resource failedSync 'Microsoft.Storage/storageAccounts/tableServices/tables@2023-05-01' = {
  parent: tables
  name: failedSyncTable
}

// Chart images live 12 hours; one day is the shortest lifetime a lifecycle rule can express.
// Reports are kept reportRetentionDays (their download links stop working after that).
resource lifecycle 'Microsoft.Storage/storageAccounts/managementPolicies@2023-05-01' = {
  parent: account
  name: 'default'
  properties: {
    policy: {
      rules: [
        {
          name: 'expire-chart-cache'
          enabled: true
          type: 'Lifecycle'
          definition: {
            filters: {
              blobTypes: [ 'blockBlob' ]
              prefixMatch: [ '${chartCacheContainer}/' ]
            }
            actions: {
              baseBlob: {
                delete: { daysAfterModificationGreaterThan: 1 }
              }
            }
          }
        }
        {
          name: 'expire-reports'
          enabled: true
          type: 'Lifecycle'
          definition: {
            filters: {
              blobTypes: [ 'blockBlob' ]
              prefixMatch: [ '${reportsContainer}/' ]
            }
            actions: {
              baseBlob: {
                delete: { daysAfterModificationGreaterThan: reportRetentionDays }
              }
            }
          }
        }
      ]
    }
  }
}

resource roleAssignments 'Microsoft.Authorization/roleAssignments@2022-04-01' = [for role in items(roles): {
  name: guid(account.id, identityPrincipalId, role.value)
  scope: account
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', role.value)
    principalId: identityPrincipalId
    principalType: 'ServicePrincipal'
  }
}]

// Who wrote and deleted what, per service. Reads are left out: every chart-cache hit is a read, and
// logging them would cost more than the storage they watch.
var storageLogs = [
  { category: 'StorageWrite', enabled: true }
  { category: 'StorageDelete', enabled: true }
]

resource blobLogs 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  scope: blobs
  name: 'to-log-analytics'
  properties: { workspaceId: logAnalyticsWorkspaceId, logs: storageLogs }
}

resource queueLogs 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  scope: queues
  name: 'to-log-analytics'
  properties: { workspaceId: logAnalyticsWorkspaceId, logs: storageLogs }
}

resource tableLogs 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  scope: tables
  name: 'to-log-analytics'
  properties: { workspaceId: logAnalyticsWorkspaceId, logs: storageLogs }
}

output name string = account.name
output reportQueue string = reportQueue
output blobEndpoint string = account.properties.primaryEndpoints.blob
