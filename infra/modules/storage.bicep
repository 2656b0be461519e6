// The platform's data account, reached only with Entra ID (no shared keys): the chart cache, the
// reports, the failed-sync table, the report execution queue and its poison queue, the timers'
// SQL-work markers. The apps reach it through PLATFORM_STORAGE__accountName (app-settings.bicep);
// the Functions host's own storage and the deployment packages are in each app's own account
// (host-storage.bicep), never here. Each app's identity gets data roles on the containers, queues
// and tables it uses, one by one (main.bicep's serviceAccess); none has a data role on the whole
// account.
param name string
param location string
param tags object
@description('Per app: principalId and the containers, queues and tables it uses, and whether it makes user delegation keys (main.bicep, appAccess).')
param grants array
@minValue(1)
@description('Generated reports (PDFs, presentations) are deleted this many days after they were written.')
param reportRetentionDays int
@description('Log Analytics workspace receiving the blob, queue and table write and delete logs.')
param logAnalyticsWorkspaceId string

// Names the services use; keep in step with their settings' defaults (docs/deploy.md, "Storage").
var chartCacheContainer = 'chart-cache'
var reportsContainer = 'reports'
var failedSyncTable = 'paymentfailedsyncs'
// shared/sql/idle.ts (SQL_WORK_TABLE): the timers' markers that let a serverless database pause.
var sqlWorkTable = 'sqlwork'
var reportQueue = 'report-executions'

var roles = {
  blobDataContributor: 'ba92f5b4-2d11-453d-a403-e96b0029c9fe'
  queueDataContributor: '974c5e8b-45b9-4653-ba55-5f855dd0fb88'
  tableDataContributor: '0a9a7e1f-b9d0-4cc4-a60d-0319b160aaa3'
  // Only generateUserDelegationKey (an account-level action): the SAS it signs can grant no more
  // than the signer's own data roles, here the reports container.
  blobDelegator: 'db58b8e5-c6ad-4a2a-8342-4190687cbf4a'
}

var containerGrants = flatten(map(grants, grant => map(grant.containers, container => { principalId: grant.principalId, name: container })))
var queueGrants = flatten(map(grants, grant => map(grant.queues, queue => { principalId: grant.principalId, name: queue })))
var tableGrants = flatten(map(grants, grant => map(grant.tables, table => { principalId: grant.principalId, name: table })))
var delegators = filter(grants, grant => grant.delegationKey)

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

resource containers 'Microsoft.Storage/storageAccounts/blobServices/containers@2025-06-01' = [for container in [ chartCacheContainer, reportsContainer ]: {
  parent: blobs
  name: container
  properties: { publicAccess: 'None' }
}]

resource queues 'Microsoft.Storage/storageAccounts/queueServices@2025-06-01' = {
  parent: account
  name: 'default'
}

// The Functions host moves a message to <queue>-poison after 5 failed dequeues.
resource reportQueues 'Microsoft.Storage/storageAccounts/queueServices/queues@2025-06-01' = [for queue in [ reportQueue, '${reportQueue}-poison' ]: {
  parent: queues
  name: queue
}]

resource tables 'Microsoft.Storage/storageAccounts/tableServices@2025-06-01' = {
  parent: account
  name: 'default'
}

resource platformTables 'Microsoft.Storage/storageAccounts/tableServices/tables@2025-06-01' = [for table in [ failedSyncTable, sqlWorkTable ]: {
  parent: tables
  name: table
}]

// Chart images live 12 hours; one day is the shortest lifetime a lifecycle rule can express.
// Reports are kept reportRetentionDays (their download links stop working after that).
resource lifecycle 'Microsoft.Storage/storageAccounts/managementPolicies@2025-06-01' = {
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

// Role assignments on one container, queue or table each. Their names hash the scope, the principal
// and the role, so a redeployment finds them again.
resource grantedContainers 'Microsoft.Storage/storageAccounts/blobServices/containers@2025-06-01' existing = [for grant in containerGrants: {
  parent: blobs
  name: grant.name
}]

resource containerRoles 'Microsoft.Authorization/roleAssignments@2022-04-01' = [for (grant, i) in containerGrants: {
  name: guid(grantedContainers[i].id, grant.principalId, roles.blobDataContributor)
  scope: grantedContainers[i]
  dependsOn: [ containers ]
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roles.blobDataContributor)
    principalId: grant.principalId
    principalType: 'ServicePrincipal'
  }
}]

resource grantedQueues 'Microsoft.Storage/storageAccounts/queueServices/queues@2025-06-01' existing = [for grant in queueGrants: {
  parent: queues
  name: grant.name
}]

resource queueRoles 'Microsoft.Authorization/roleAssignments@2022-04-01' = [for (grant, i) in queueGrants: {
  name: guid(grantedQueues[i].id, grant.principalId, roles.queueDataContributor)
  scope: grantedQueues[i]
  dependsOn: [ reportQueues ]
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roles.queueDataContributor)
    principalId: grant.principalId
    principalType: 'ServicePrincipal'
  }
}]

resource grantedTables 'Microsoft.Storage/storageAccounts/tableServices/tables@2025-06-01' existing = [for grant in tableGrants: {
  parent: tables
  name: grant.name
}]

resource tableRoles 'Microsoft.Authorization/roleAssignments@2022-04-01' = [for (grant, i) in tableGrants: {
  name: guid(grantedTables[i].id, grant.principalId, roles.tableDataContributor)
  scope: grantedTables[i]
  dependsOn: [ platformTables ]
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roles.tableDataContributor)
    principalId: grant.principalId
    principalType: 'ServicePrincipal'
  }
}]

resource delegatorRoles 'Microsoft.Authorization/roleAssignments@2022-04-01' = [for grant in delegators: {
  name: guid(account.id, grant.principalId, roles.blobDelegator)
  scope: account
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roles.blobDelegator)
    principalId: grant.principalId
    principalType: 'ServicePrincipal'
  }
}]

// Who wrote and deleted what, per service. Reads are left out: every chart-cache hit is a read, and
// logging them would cost more than the storage they watch.
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
resource queueLogs 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  scope: queues
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
output reportQueue string = reportQueue
// The report queue trigger's connection (PLATFORM_STORAGE__queueServiceUri).
output queueEndpoint string = account.properties.primaryEndpoints.queue
