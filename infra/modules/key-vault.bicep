// Key Vault (RBAC authorization) holding every secret the apps read through Key Vault references.
// Secrets are written by the postprovision hook (generated ones, scripts/secrets.ts) and by
// operators (Stripe, SMTP; docs/deploy.md), never passed as deployment parameters.
//
// No app's read access is assigned here. An app reads only its own secrets (Key Vault Secrets User
// on each secret, never on the vault), and a role assignment names its scope: a secret that does
// not exist yet (all of them, on a first deployment) cannot be one. So a secret's readers are
// granted by the command that writes it (scripts/secret-readers.ts), from main.bicep's
// KEY_VAULT_READERS output; no deployment assigns a role on a secret.
param name string
param location string
param tags object
@description('Principal that runs the deployment and writes the secrets (Key Vault Secrets Officer). Empty: none.')
param deployerPrincipalId string
@allowed([ 'User', 'Group', 'ServicePrincipal' ])
param deployerPrincipalType string
param purgeProtection bool
@description('Log Analytics workspace receiving the vault\'s audit log (every secret read and write, with the caller).')
param logAnalyticsWorkspaceId string

var secretsOfficer = 'b86a8fe4-44ce-4948-aee5-eccb2c155cd7'

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
