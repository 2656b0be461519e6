#!/usr/bin/env node
// Runs an azd hook the same way on Linux, macOS and Windows (azure.yaml calls it from sh and from
// pwsh): installs the dependencies when node_modules is missing, builds when asked or when the
// compiled script is missing, then runs the compiled script.
//   node infra/hooks/run.js postprovision    -> dist/scripts/postprovision.js (after npm run build)
//   node infra/hooks/run.js deploy-package   -> dist/scripts/deploy-package.js (azd has just built)
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const HOOKS = { postprovision: { build: true }, 'deploy-package': { build: false } };
const root = path.resolve(__dirname, '..', '..');
const name = process.argv[2];
if (!Object.prototype.hasOwnProperty.call(HOOKS, name)) {
  process.stderr.write(`usage: node infra/hooks/run.js <${Object.keys(HOOKS).join('|')}>\n`);
  process.exit(2);
}

function run(command, args) {
  // npm is npm.cmd on Windows, which Node starts only through a shell.
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', shell: command === 'npm' && process.platform === 'win32' });
  if (result.error) throw result.error;
  if (result.status !== 0) process.exit(result.status === null ? 1 : result.status);
}

// The deploy workflow provisions with the hook deferred, signs in again, then runs the hook itself.
if (name === 'postprovision' && process.env.POSTPROVISION_SKIP) {
  process.stdout.write(`postprovision: skipped (${process.env.POSTPROVISION_SKIP})\n`);
  process.exit(0);
}

const script = path.join(root, 'dist', 'scripts', `${name}.js`);
if (!fs.existsSync(path.join(root, 'node_modules'))) run('npm', ['ci', '--no-audit', '--no-fund']);
if (HOOKS[name].build || !fs.existsSync(script)) run('npm', ['run', 'build', '--silent']);
run(process.execPath, [script]);
