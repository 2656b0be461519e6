// App settings of one Function App: the settings of every service it serves (SERVICES).
//
// tests/infra/settings-parity.test.ts reads the three object literals below as text and checks them
// against SETTINGS in shared/config/settings.ts. Keep one `NAME: value` per line:
// - plainSettingsByService: `deploy: 'app'` settings (and any `tuning` one given a value here), under
//   `all` or under each service that reads them;
// - keyVaultSecretsByService: `deploy: 'secret'` settings, as Key Vault references to the secret named
//   like the setting in lower case with dashes (JWT_SIGNING_KEYS -> jwt-signing-keys);
// - hostSettings: settings of the Functions host itself, not read by our code.
param appName string
@description('Services this app serves.')
param services array
@description('Base URL of each service: identity, payment, orchestrator, visual.')
param serviceUrls object
@description('Key Vault URI, ending with a slash.')
param keyVaultUri string
@description('The app\'s own storage account: the Functions host\'s (AzureWebJobsStorage), host-storage.bicep.')
param hostStorageAccountName string
@description('The platform\'s data account (PLATFORM_STORAGE): chart cache, reports, the report queue, the tables.')
param dataStorageAccountName string
@description('The data account\'s queue endpoint: the report queue trigger\'s connection.')
param dataQueueEndpoint string
param identityClientId string
param sqlServerFqdn string
param sqlDatabaseName string
param appInsightsConnectionString string
param bootstrapAdminEmail string
param sqlPoolMax int
param orchestratorAiEndpoint string
param orchestratorAiProvider string
param orchestratorAiModel string
@description('The report execution queue (the orchestrator\'s queue trigger reads it as %ORCHESTRATOR_QUEUE%).')
param reportQueue string
@description('Azure Communication Services endpoint identity sends the sign-in emails through, with the managed identity.')
param emailEndpoint string
@description('From of every email (sign-in codes, billing and report notices): the Azure-managed domain\'s sender.')
param emailFrom string
@description('Origins allowed to call this app from a browser: the app setting CORS_ALLOWED_ORIGINS and the platform\'s CORS get the same list.')
param corsAllowedOrigins array

var plainSettingsByService = {
  all: {
    SERVICES: join(services, ',')
    APPLICATIONINSIGHTS_CONNECTION_STRING: appInsightsConnectionString
    SQL_SERVER: sqlServerFqdn
    SQL_DATABASE: sqlDatabaseName
    SQL_POOL_MAX: string(sqlPoolMax)
    AZURE_CLIENT_ID: identityClientId
    AzureWebJobsStorage__accountName: hostStorageAccountName
    AzureWebJobsStorage__credential: 'managedidentity'
    AzureWebJobsStorage__clientId: identityClientId
    PLATFORM_STORAGE__accountName: dataStorageAccountName
    CORS_ALLOWED_ORIGINS: join(corsAllowedOrigins, ',')
  }
  identity: {
    BOOTSTRAP_ADMIN_EMAIL: bootstrapAdminEmail
    EMAIL_ACS_ENDPOINT: emailEndpoint
    EMAIL_FROM: emailFrom
  }
  payment: {
    IDENTITY_URL: serviceUrls.identity
    ORCHESTRATOR_URL: serviceUrls.orchestrator
    EMAIL_ACS_ENDPOINT: emailEndpoint
    EMAIL_FROM: emailFrom
    PAYMENT_SYNC_RETRY_SCHEDULE: '0 */1 * * * *'
  }
  orchestrator: {
    ORCHESTRATOR_QUEUE: reportQueue
    PLATFORM_STORAGE__queueServiceUri: dataQueueEndpoint
    PLATFORM_STORAGE__credential: 'managedidentity'
    PLATFORM_STORAGE__clientId: identityClientId
    EMAIL_ACS_ENDPOINT: emailEndpoint
    EMAIL_FROM: emailFrom
    IDENTITY_URL: serviceUrls.identity
    PAYMENT_URL: serviceUrls.payment
    VISUAL_URL: serviceUrls.visual
    ORCHESTRATOR_AI_ENDPOINT: orchestratorAiEndpoint
    ORCHESTRATOR_AI_PROVIDER: orchestratorAiProvider
    ORCHESTRATOR_AI_MODEL: orchestratorAiModel
  }
  visual: {
    VISUAL_URL: serviceUrls.visual
  }
}

var keyVaultSecretsByService = {
  all: {}
  identity: {
    JWT_SIGNING_KEYS: '@Microsoft.KeyVault(SecretUri=${keyVaultUri}secrets/jwt-signing-keys/)'
    SERVICE_TOKEN_SECRET: '@Microsoft.KeyVault(SecretUri=${keyVaultUri}secrets/service-token-secret/)'
    SERVICE_TOKEN_SECRET_PREVIOUS: '@Microsoft.KeyVault(SecretUri=${keyVaultUri}secrets/service-token-secret-previous/)'
    OTP_HMAC_KEY: '@Microsoft.KeyVault(SecretUri=${keyVaultUri}secrets/otp-hmac-key/)'
    SMTP_URL: '@Microsoft.KeyVault(SecretUri=${keyVaultUri}secrets/smtp-url/)'
  }
  payment: {
    AUTH_ADMIN_TOKEN: '@Microsoft.KeyVault(SecretUri=${keyVaultUri}secrets/auth-admin-token/)'
    STRIPE_SECRET_KEY: '@Microsoft.KeyVault(SecretUri=${keyVaultUri}secrets/stripe-secret-key/)'
    STRIPE_WEBHOOK_SECRET: '@Microsoft.KeyVault(SecretUri=${keyVaultUri}secrets/stripe-webhook-secret/)'
    SMTP_URL: '@Microsoft.KeyVault(SecretUri=${keyVaultUri}secrets/smtp-url/)'
  }
  orchestrator: {
    VISUAL_API_TOKEN: '@Microsoft.KeyVault(SecretUri=${keyVaultUri}secrets/visual-api-token/)'
    ORCHESTRATOR_AI_API_KEY: '@Microsoft.KeyVault(SecretUri=${keyVaultUri}secrets/orchestrator-ai-api-key/)'
    SMTP_URL: '@Microsoft.KeyVault(SecretUri=${keyVaultUri}secrets/smtp-url/)'
  }
  visual: {
    VISUAL_API_TOKEN: '@Microsoft.KeyVault(SecretUri=${keyVaultUri}secrets/visual-api-token/)'
    QUICKCHART_API_KEY: '@Microsoft.KeyVault(SecretUri=${keyVaultUri}secrets/quickchart-api-key/)'
  }
}

var hostSettings = {
  // The host's own telemetry authenticates with the managed identity (Monitoring Metrics Publisher).
  APPLICATIONINSIGHTS_AUTHENTICATION_STRING: 'Authorization=AAD;ClientId=${identityClientId}'
}

var appSettings = reduce(services, union(hostSettings, plainSettingsByService.all, keyVaultSecretsByService.all), (merged, service) => union(merged, plainSettingsByService[service], keyVaultSecretsByService[service]))

resource app 'Microsoft.Web/sites@2025-03-01' existing = {
  name: appName
}

resource settings 'Microsoft.Web/sites/config@2025-03-01' = {
  parent: app
  name: 'appsettings'
  properties: appSettings
}

// The platform answers CORS preflights in Azure (and its headers take precedence over the app's):
// it gets the same list as CORS_ALLOWED_ORIGINS, which the app's own wrapper uses under func start
// and the dev host. Set here, after every app exists, because the list names the orchestrator's
// host; the other site settings are repeated because this resource replaces the web config.
// After the app settings, never beside them: two writes to one site's config at once fail at
// random with 409 Conflict.
resource web 'Microsoft.Web/sites/config@2025-03-01' = {
  parent: app
  name: 'web'
  dependsOn: [ settings ]
  properties: {
    minTlsVersion: '1.2'
    ftpsState: 'Disabled'
    http20Enabled: true
    cors: {
      allowedOrigins: corsAllowedOrigins
      supportCredentials: false
    }
  }
}
