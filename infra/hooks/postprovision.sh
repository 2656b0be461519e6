#!/usr/bin/env bash
# azd postprovision hook (azure.yaml), also runnable by hand after `azd provision`:
# 1. creates the Key Vault secrets that are missing (npm run secrets; never changes existing ones);
# 2. opens Azure SQL to this machine, applies the migrations and makes the apps' managed identity a
#    database user (npm run migrate -- --grant), then closes the firewall again.
# Runs as the signed-in principal (azd auth login / az login), which must be the SQL Entra admin
# (or in its group) and holds Key Vault Secrets Officer (main.bicep grants it to principalId).
# Values come from the azd environment (main.bicep outputs).
set -euo pipefail
cd "$(dirname "$0")/../.."

[ -d node_modules ] || npm ci --no-audit --no-fund
npm run build --silent

echo "Key Vault $AZURE_KEY_VAULT_NAME: ensuring secrets"
node dist/scripts/secrets.js

ip="$(curl -fsS https://api.ipify.org)"
rule="deployer-$(date +%s)"
echo "Azure SQL $SQL_SERVER_NAME: allowing $ip while migrating"
az sql server firewall-rule create -g "$AZURE_RESOURCE_GROUP" -s "$SQL_SERVER_NAME" -n "$rule" \
  --start-ip-address "$ip" --end-ip-address "$ip" -o none
trap 'az sql server firewall-rule delete -g "$AZURE_RESOURCE_GROUP" -s "$SQL_SERVER_NAME" -n "$rule" -o none' EXIT

# A new firewall rule and a paused serverless database can each take a minute to accept logins.
for attempt in 1 2 3 4 5; do
  if SQL_SERVER="$SQL_SERVER" SQL_DATABASE="$SQL_DATABASE" \
    node dist/scripts/migrate.js --grant "$MANAGED_IDENTITY_NAME" --client-id "$MANAGED_IDENTITY_CLIENT_ID"; then
    exit 0
  fi
  echo "migrate attempt $attempt failed; retrying in 20 s"
  sleep 20
done
exit 1
