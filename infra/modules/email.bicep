// Email for sign-in codes without any secret: Azure Communication Services Email with an
// Azure-managed domain (<guid>.azurecomm.net, ready without DNS work), its DoNotReply sender, and a
// communication service linked to the domain. The apps send through it with their managed identity
// (functions/identity/mailer.ts); the service's access keys are disabled, so only Entra ID works.
param nameSuffix string
param tags object
@description('Where the email data is stored at rest (a geography, not a region: United States, Europe, UK...).')
param dataLocation string
@description('Principal id of the apps\' managed identity, which sends the email.')
param identityPrincipalId string
@description('Display name of the sender.')
param senderDisplayName string

// Sending with Entra ID needs this role on the communication service (it is scoped to that one
// resource; its key actions are moot with local authentication disabled). docs/deploy.md, Decisions.
var communicationAndEmailServiceOwner = '09976791-48a7-449e-bb21-39d1a415f350'

resource emailService 'Microsoft.Communication/emailServices@2025-05-01' = {
  name: 'email-${nameSuffix}'
  location: 'global'
  tags: tags
  properties: {
    dataLocation: dataLocation
  }
}

resource domain 'Microsoft.Communication/emailServices/domains@2025-05-01' = {
  parent: emailService
  name: 'AzureManagedDomain'
  location: 'global'
  tags: tags
  properties: {
    domainManagement: 'AzureManaged'
    userEngagementTracking: 'Disabled'
  }
}

resource sender 'Microsoft.Communication/emailServices/domains/senderUsernames@2025-05-01' = {
  parent: domain
  name: 'donotreply'
  properties: {
    username: 'DoNotReply'
    displayName: senderDisplayName
  }
}

resource communication 'Microsoft.Communication/communicationServices@2025-05-01' = {
  name: 'acs-${nameSuffix}'
  location: 'global'
  tags: tags
  properties: {
    dataLocation: dataLocation
    linkedDomains: [ domain.id ]
    disableLocalAuth: true
  }
}

resource appsSendEmail 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(communication.id, identityPrincipalId, communicationAndEmailServiceOwner)
  scope: communication
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', communicationAndEmailServiceOwner)
    principalId: identityPrincipalId
    principalType: 'ServicePrincipal'
  }
}

output endpoint string = 'https://${communication.properties.hostName}'
// The From of every email: "<display name> <DoNotReply@<guid>.azurecomm.net>" (EMAIL_FROM).
output from string = '${sender.properties.displayName} <${sender.properties.username}@${domain.properties.mailFromSenderDomain}>'
