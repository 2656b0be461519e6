// One Function App's user-assigned identity (main.bicep makes one per app): its Storage, Key Vault, SQL,
// e-mail and Application Insights rights are granted by the modules that own those resources.
param name string
param location string
param tags object

resource identity 'Microsoft.ManagedIdentity/userAssignedIdentities@2024-11-30' = {
  name: name
  location: location
  tags: tags
}

output id string = identity.id
output name string = identity.name
output principalId string = identity.properties.principalId
output clientId string = identity.properties.clientId
