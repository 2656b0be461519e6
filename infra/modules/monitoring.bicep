// Log Analytics workspace and the workspace-based Application Insights every app reports to.
param logAnalyticsName string
param appInsightsName string
param location string
param tags object
@description('Principal ids of the apps\' identities (Monitoring Metrics Publisher, for Entra-authenticated ingestion).')
param identityPrincipalIds array
@description('Refuse ingestion with the connection string\'s key alone: only Entra ID authenticated senders (the managed identity) are accepted.')
param disableLocalAuth bool
@description('Most GB the workspace ingests a day (-1: no cap). Beyond it, ingestion stops until the next day (UTC), alerts included.')
param dailyCapGb int

var monitoringMetricsPublisher = '3913510d-42f4-4e42-8a64-420c390055eb'

resource logAnalytics 'Microsoft.OperationalInsights/workspaces@2025-07-01' = {
  name: logAnalyticsName
  location: location
  tags: tags
  properties: {
    sku: { name: 'PerGB2018' }
    retentionInDays: 30
    workspaceCapping: { dailyQuotaGb: dailyCapGb }
  }
}

resource appInsights 'Microsoft.Insights/components@2020-02-02' = {
  name: appInsightsName
  location: location
  tags: tags
  kind: 'web'
  properties: {
    Application_Type: 'web'
    WorkspaceResourceId: logAnalytics.id
    // The Functions host authenticates with Entra ID (APPLICATIONINSIGHTS_AUTHENTICATION_STRING). Local
    // auth can go only once the app's own exporter sends with the managed identity too: a sender using
    // the connection string's key alone is refused, and its telemetry is lost (docs/deploy.md, Decisions).
    DisableLocalAuth: disableLocalAuth
  }
}

resource metricsPublisher 'Microsoft.Authorization/roleAssignments@2022-04-01' = [for identityPrincipalId in identityPrincipalIds: {
  name: guid(appInsights.id, identityPrincipalId, monitoringMetricsPublisher)
  scope: appInsights
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', monitoringMetricsPublisher)
    principalId: identityPrincipalId
    principalType: 'ServicePrincipal'
  }
}]

output connectionString string = appInsights.properties.ConnectionString
output name string = appInsights.name
output id string = appInsights.id
output workspaceId string = logAnalytics.id
