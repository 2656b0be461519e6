// Key Vault (RBAC authorization) holding every secret the apps read through Key Vault references.
// Secrets are written by infra/hooks/postprovision.sh (generated ones) and by operators
// (Stripe, SMTP; docs/deploy.md), never passed as deployment parameters.
param name string
param location string
param tags object
@description('Per app: principalId and the secrets it reads (main.bicep, appAccess). Each gets Key Vault Secrets User on those secrets alone.')
param secretReaders array
@description('Principal that runs the deployment and writes the secrets (Key Vault Secrets Officer). Empty: none.')
param deployerPrincipalId string
@allowed([ 'User', 'Group', 'ServicePrincipal' ])
param deployerPrincipalType string
param purgeProtection bool
@description('Log Analytics workspace receiving the vault\'s audit log (every secret read and write, with the caller).')
param logAnalyticsWorkspaceId string

var secretsUser = '4633458b-17de-408a-b874-0445c86b69e6'
var secretsOfficer = 'b86a8fe4-44ce-4948-aee5-eccb2c155cd7'
var secretGrants = flatten(map(secretReaders, reader => map(reader.secrets, secret => { principalId: reader.principalId, secret: secret })))

resource vault 'Microsoft.KeyVault/vaults@2025-05-01' = {
  name: name
  location: location
  tags: tags
  properties: {
    tenantId: tenant().tenantId
    sku: { family: 'A', name: 'standard' }
    enableRbacAuthorization: true
    enableSoftDelete: true
    softDeleteRetentionInDays: 90
    enablePurgeProtection: purgeProtection ? true : null
    publicNetworkAccess: 'Enabled'
  }
}

// Scoped to the secret, not the vault: the visual app cannot read jwt-signing-keys or
// stripe-secret-key. The secrets are written later (postprovision hook, operators); a role
// assignment on a secret's scope names it by resource id.
resource readSecrets 'Microsoft.KeyVault/vaults/secrets@2025-05-01' existing = [for grant in secretGrants: {
  parent: vault
  name: grant.secret
}]

resource appsReadSecrets 'Microsoft.Authorization/roleAssignments@2022-04-01' = [for (grant, i) in secretGrants: {
  name: guid(readSecrets[i].id, grant.principalId, secretsUser)
  scope: readSecrets[i]
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', secretsUser)
    principalId: grant.principalId
    principalType: 'ServicePrincipal'
  }
}]

resource deployerWritesSecrets 'Microsoft.Authorization/roleAssignments@2022-04-01' = if (!empty(deployerPrincipalId)) {
  name: guid(vault.id, deployerPrincipalId, secretsOfficer)
  scope: vault
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', secretsOfficer)
    principalId: deployerPrincipalId
    principalType: deployerPrincipalType
  }
}

// The newest diagnosticSettings API is this preview (the linter's only other choice, 2016-09-01, is the
// legacy service-level type, not an extension of a resource).
#disable-next-line use-recent-api-versions
resource auditToLogAnalytics 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  scope: vault
  name: 'to-log-analytics'
  properties: {
    workspaceId: logAnalyticsWorkspaceId
    logs: [ { categoryGroup: 'audit', enabled: true } ]
  }
}

output name string = vault.name
output uri string = vault.properties.vaultUri
