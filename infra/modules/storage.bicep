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

// Chart images live 12 hours (spec 8); one day is the shortest lifetime a lifecycle rule can express.
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

output name string = account.name
output reportQueue string = reportQueue
output blobEndpoint string = account.properties.primaryEndpoints.blob
