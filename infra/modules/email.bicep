// Email for sign-in codes without any secret: Azure Communication Services Email. Two kinds of domain:
// - a custom domain (customDomain, e.g. mail.example.com): yours, verified with DNS records the
//   deployment outputs (verificationRecords: domain TXT, SPF, DKIM, DKIM2, DMARC); used once
//   customDomainVerified is true. Production: the managed domain's limits stop sign-in at the
//   eleventh e-mail of an hour (docs/deploy.md, "Sign-in e-mail");
// - otherwise an Azure-managed domain (<guid>.azurecomm.net, ready without DNS work), for a trial.
// The apps send through the communication service with their managed identity
// (functions/identity/mailer.ts); its access keys are disabled, so only Entra ID works. Its send
// and delivery logs go to Log Analytics, so an undelivered code can be found.
param nameSuffix string
param tags object
@description('Where the email data is stored at rest (a geography, not a region: United States, Europe, UK...).')
param dataLocation string
@description('Principal ids of the identities of the apps that send e-mail (identity, payment, orchestrator); \'\' for an app that sends none.')
param senderPrincipalIds array
@description('Display name of the sender.')
param senderDisplayName string
@description('Local part of the From address (DoNotReply@domain).')
param senderUsername string
@description('Custom sending domain (mail.example.com). Empty: the Azure-managed domain (trial only).')
param customDomain string
@description('The custom domain\'s DNS records exist and Azure verified them: link it and send from it.')
param customDomainVerified bool
@description('Log Analytics workspace receiving the e-mail send and delivery logs.')
param logAnalyticsWorkspaceId string

var useCustomDomain = !empty(customDomain) && customDomainVerified
var senders = filter(senderPrincipalIds, principalId => !empty(principalId))

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

// The trial's domain: deployed while no verified custom domain is in use.
resource managedDomain 'Microsoft.Communication/emailServices/domains@2025-05-01' = if (!useCustomDomain) {
  parent: emailService
  name: 'AzureManagedDomain'
  location: 'global'
  tags: tags
  properties: {
    domainManagement: 'AzureManaged'
    userEngagementTracking: 'Disabled'
  }
}

// Created on the first deployment that names it, so its DNS records can be read (outputs); linked and
// used only once verified (customDomainVerified).
resource customerDomain 'Microsoft.Communication/emailServices/domains@2025-05-01' = if (!empty(customDomain)) {
  parent: emailService
  name: empty(customDomain) ? 'unused' : customDomain
  location: 'global'
  tags: tags
  properties: {
    domainManagement: 'CustomerManaged'
    userEngagementTracking: 'Disabled'
  }
}

resource managedSender 'Microsoft.Communication/emailServices/domains/senderUsernames@2025-05-01' = if (!useCustomDomain) {
  parent: managedDomain
  name: toLower(senderUsername)
  properties: {
    username: senderUsername
    displayName: senderDisplayName
  }
}

resource customSender 'Microsoft.Communication/emailServices/domains/senderUsernames@2025-05-01' = if (useCustomDomain) {
  parent: customerDomain
  name: toLower(senderUsername)
  properties: {
    username: senderUsername
    displayName: senderDisplayName
  }
}

resource communication 'Microsoft.Communication/communicationServices@2025-05-01' = {
  name: 'acs-${nameSuffix}'
  location: 'global'
  tags: tags
  properties: {
    dataLocation: dataLocation
    linkedDomains: [ useCustomDomain ? customerDomain.id : managedDomain.id ]
    disableLocalAuth: true
  }
}

resource appsSendEmail 'Microsoft.Authorization/roleAssignments@2022-04-01' = [for principalId in senders: {
  name: guid(communication.id, principalId, communicationAndEmailServiceOwner)
  scope: communication
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', communicationAndEmailServiceOwner)
    principalId: principalId
    principalType: 'ServicePrincipal'
  }
}]

// Every send request (EmailSendMailOperational: the message id, the sender, the recipient count,
// the status) and every delivery outcome (EmailStatusUpdateOperational: Delivered, Bounced,
// Suppressed, Quarantined, FilteredSpam, with the reason): an undelivered code is found by its
// message id (docs/deploy.md, "Sign-in e-mail").
// The newest diagnosticSettings API is this preview (the linter's only other choice, 2016-09-01, is the
// legacy service-level type, not an extension of a resource).
#disable-next-line use-recent-api-versions
resource emailLogs 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  scope: communication
  name: 'to-log-analytics'
  properties: {
    workspaceId: logAnalyticsWorkspaceId
    logs: [
      { category: 'EmailSendMailOperational', enabled: true }
      { category: 'EmailStatusUpdateOperational', enabled: true }
    ]
  }
}

output endpoint string = 'https://${communication.properties.hostName}'
// The From of every email: "<display name> <DoNotReply@<domain>>" (EMAIL_FROM).
output from string = useCustomDomain
  ? '${customSender!.properties.displayName} <${customSender!.properties.username}@${customDomain}>'
  : '${managedSender!.properties.displayName} <${managedSender!.properties.username}@${managedDomain!.properties.mailFromSenderDomain}>'
// The DNS records that verify the custom domain and let it send (Domain TXT, SPF, DKIM, DKIM2, DMARC:
// each { type, name, value, ttl }); empty without a custom domain.
output verificationRecords object = empty(customDomain) ? {} : customerDomain!.properties.verificationRecords
