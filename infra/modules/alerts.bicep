// Watching production: an action group (email), a standard availability test on each service's
// health route with an alert, one server-error-rate alert over every Function App, and log-search alerts on
// the lines the apps' timers write (docs/deploy.md, "Alerts" has the runbook line of each).
//
// The log-search alerts read Application Insights' `traces` table: a log line's message is `message`,
// its structured fields are `customDimensions`. The messages and fields are written by
// functions/payment/backlog.ts (SYNC_BACKLOG_MESSAGE), functions/orchestrator/workflow/queue-depth.ts
// (QUEUE_DEPTH_MESSAGE) and functions/orchestrator/workflow/stuck.ts (STUCK_EXECUTIONS_MESSAGE);
// tests/infra/monitoring.test.ts keeps the queries and the code in step.
param nameSuffix string
param location string
param tags object
@description('Resource id of the Application Insights component the apps report to.')
param appInsightsId string
@description('Where alert emails go. Empty: alerts fire and show in the portal, but nobody is emailed.')
param alertEmail string
@description('Names of the Function Apps (their server-error rate is watched one by one).')
param appNames array
@description('Health route of each service: [ { service, url } ].')
param healthChecks array
@description('Seconds between two runs of each availability test: 300 or 900.')
param testFrequency int
@description('Availability test location ids; the alert needs two of them failing.')
param testLocations array
@description('Monthly budget of the resource group in the billing currency; 0: no budget.')
param budgetAmount int
@description('First day of the budget\'s first month (yyyy-MM-01).')
param budgetStartDate string

// Every log-search rule runs every 15 minutes over the last 15: a rule evaluated every 5 minutes
// costs three times as much, and none of these needs it.
var logAlertFrequency = 'PT15M'

// Server errors, one rule for every app: an app whose HTTP requests in 15 minutes number at least
// 20 with more than 5 % answered 5xx. Only HTTP requests (they have a url; timer and queue
// invocations are requests without one). Each request counts, also several in one operation (a
// console page calling the same app twice); only a row whose parent is another request row of the
// same app is left out: the app's own exporter nests its request under the Functions host's.
var serverErrorQuery = '''
let http = requests
| where cloud_RoleName in~ ({apps}) and isnotempty(url);
http
| join kind=leftanti (http | project parentRow = id) on $left.operation_ParentId == $right.parentRow
| summarize total = count(), failed = countif(toint(resultCode) >= 500) by cloud_RoleName
| where total >= 20 and failed * 100.0 / total > 5
'''

// The newest backlog line says a plan has waited more than 15 minutes (900 s) to reach identity.
var syncsPendingQuery = '''
traces
| where message == "payment sync backlog"
| summarize arg_max(timestamp, customDimensions)
| extend oldestPendingSeconds = toint(customDimensions.oldestPendingSeconds), syncsPending = toint(customDimensions.syncsPending)
| where oldestPendingSeconds > 900
'''

// The newest backlog line counts payments in manual review.
var manualReviewQuery = '''
traces
| where message == "payment sync backlog"
| summarize arg_max(timestamp, customDimensions)
| extend manualReview = toint(customDimensions.manualReview)
| where manualReview > 0
'''

// The newest queue-depth line counts messages in the poison queue.
var poisonQueueQuery = '''
traces
| where message == "orchestrator queue depth"
| summarize arg_max(timestamp, customDimensions)
| extend poisonMessages = toint(customDimensions.poisonMessages)
| where poisonMessages > 0
'''

// The stuck-execution timer failed executions that made no progress for ORCHESTRATOR_STUCK_MINUTES.
var stuckExecutionsQuery = '''
traces
| where message == "stuck executions failed with TIMEOUT"
| summarize executions = sum(toint(customDimensions["count"]))
| where executions > 0
'''

// A timer line expected every minute has not arrived: the alerts above would stay silent.
var heartbeatQuery = '''
datatable(message: string) ["payment sync backlog", "orchestrator queue depth"]
| join kind=leftanti (traces | distinct message) on message
'''

var logAlerts = [
  {
    name: 'plan-syncs-pending'
    displayName: 'Plan syncs pending for more than 15 minutes'
    description: 'A paid or refunded plan has not reached identity for more than 15 minutes (payment sync backlog: oldestPendingSeconds).'
    severity: 2
    query: syncsPendingQuery
  }
  {
    name: 'payments-manual-review'
    displayName: 'Payments in manual review'
    description: 'Payments wait for an operator: plan-sync retries exhausted, or a signed event contradicts the payment record (payment sync backlog: manualReview).'
    severity: 2
    query: manualReviewQuery
  }
  {
    name: 'report-poison-queue'
    displayName: 'Report executions in the poison queue'
    description: 'Report executions failed 5 dequeues and were moved to the poison queue; they will not run again by themselves (orchestrator queue depth: poisonMessages).'
    severity: 2
    query: poisonQueueQuery
  }
  {
    name: 'stuck-executions'
    displayName: 'Report executions failed as stuck'
    description: 'Report executions made no progress for ORCHESTRATOR_STUCK_MINUTES and were failed with TIMEOUT.'
    severity: 2
    query: stuckExecutionsQuery
  }
  {
    name: 'timer-heartbeat'
    displayName: 'Monitoring lines missing'
    description: 'The payment backlog or orchestrator queue-depth line has not been written for 15 minutes: the timers are not running, or logs do not reach Application Insights.'
    severity: 2
    query: heartbeatQuery
  }
]

resource actionGroup 'Microsoft.Insights/actionGroups@2023-01-01' = {
  name: 'ag-platform-${nameSuffix}'
  location: 'global'
  tags: tags
  properties: {
    groupShortName: 'platform'
    enabled: true
    emailReceivers: empty(alertEmail) ? [] : [
      {
        name: 'operators'
        emailAddress: alertEmail
        useCommonAlertSchema: true
      }
    ]
  }
}

resource availabilityTests 'Microsoft.Insights/webtests@2022-06-15' = [for check in healthChecks: {
  name: 'avail-${check.service}-${nameSuffix}'
  location: location
  // The hidden link ties the test to the Application Insights component (its Availability page).
  tags: union(tags, { 'hidden-link:${appInsightsId}': 'Resource' })
  kind: 'standard'
  properties: {
    SyntheticMonitorId: 'avail-${check.service}-${nameSuffix}'
    Name: '${check.service} health'
    Description: 'GET ${check.url} answers 200 (the app runs, its configuration resolved, and every dependency but SQL answered).'
    Enabled: true
    Frequency: testFrequency
    Timeout: 30
    Kind: 'standard'
    RetryEnabled: true
    Locations: [for location in testLocations: { Id: location }]
    Request: {
      RequestUrl: check.url
      HttpVerb: 'GET'
      ParseDependentRequests: false
    }
    ValidationRules: {
      ExpectedHttpStatusCode: 200
      IgnoreHttpStatusCode: false
      SSLCheck: true
      SSLCertRemainingLifetimeCheck: 7
    }
  }
}]

resource availabilityAlerts 'Microsoft.Insights/metricAlerts@2026-01-01' = [for (check, i) in healthChecks: {
  name: 'alert-availability-${check.service}-${nameSuffix}'
  location: 'global'
  tags: tags
  properties: {
    description: '${check.service}: the health route failed from at least 2 of ${length(testLocations)} test locations.'
    severity: 1
    enabled: true
    scopes: [ availabilityTests[i].id, appInsightsId ]
    evaluationFrequency: 'PT5M'
    windowSize: testFrequency == 300 ? 'PT5M' : 'PT15M'
    criteria: {
      'odata.type': 'Microsoft.Azure.Monitor.WebtestLocationAvailabilityCriteria'
      webTestId: availabilityTests[i].id
      componentId: appInsightsId
      failedLocationCount: 2
    }
    actions: [ { actionGroupId: actionGroup.id } ]
  }
}]

resource serverErrorAlert 'Microsoft.Insights/scheduledQueryRules@2026-03-01' = {
  name: 'alert-5xx-${nameSuffix}'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'Server errors'
    description: 'An app answered 5xx to more than 5 % of at least 20 requests in 15 minutes (the result names the app: cloud_RoleName).'
    severity: 2
    enabled: true
    scopes: [ appInsightsId ]
    evaluationFrequency: logAlertFrequency
    windowSize: 'PT15M'
    criteria: {
      allOf: [
        {
          query: replace(serverErrorQuery, '{apps}', join(map(appNames, name => '"${name}"'), ', '))
          timeAggregation: 'Count'
          operator: 'GreaterThan'
          threshold: 0
          failingPeriods: { numberOfEvaluationPeriods: 1, minFailingPeriodsToAlert: 1 }
        }
      ]
    }
    autoMitigate: true
    actions: { actionGroups: [ actionGroup.id ] }
  }
}

resource logSearchAlerts 'Microsoft.Insights/scheduledQueryRules@2026-03-01' = [for rule in logAlerts: {
  name: 'alert-${rule.name}-${nameSuffix}'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: rule.displayName
    description: rule.description
    severity: rule.severity
    enabled: true
    scopes: [ appInsightsId ]
    evaluationFrequency: logAlertFrequency
    windowSize: 'PT15M'
    criteria: {
      allOf: [
        {
          query: rule.query
          timeAggregation: 'Count'
          operator: 'GreaterThan'
          threshold: 0
          failingPeriods: { numberOfEvaluationPeriods: 1, minFailingPeriodsToAlert: 1 }
        }
      ]
    }
    autoMitigate: true
    actions: { actionGroups: [ actionGroup.id ] }
  }
}]

// The month's actual cost passing 80 % and 100 % of the budget, and the forecast passing 100 %,
// mail the action group (cost data lags by up to a day: a budget catches a trend, not a spike).
resource budget 'Microsoft.Consumption/budgets@2026-06-01' = if (budgetAmount > 0) {
  name: 'budget-${nameSuffix}'
  properties: {
    category: 'Cost'
    amount: budgetAmount
    timeGrain: 'Monthly'
    timePeriod: { startDate: budgetStartDate }
    notifications: {
      actual80: {
        enabled: true
        operator: 'GreaterThan'
        threshold: 80
        thresholdType: 'Actual'
        contactEmails: empty(alertEmail) ? [] : [ alertEmail ]
        contactGroups: [ actionGroup.id ]
      }
      actual100: {
        enabled: true
        operator: 'GreaterThan'
        threshold: 100
        thresholdType: 'Actual'
        contactEmails: empty(alertEmail) ? [] : [ alertEmail ]
        contactGroups: [ actionGroup.id ]
      }
      forecast100: {
        enabled: true
        operator: 'GreaterThan'
        threshold: 100
        thresholdType: 'Forecasted'
        contactEmails: empty(alertEmail) ? [] : [ alertEmail ]
        contactGroups: [ actionGroup.id ]
      }
    }
  }
}

output actionGroupId string = actionGroup.id
