/**
 * Runs Azurite inside a process that exits as soon as its parent's IPC channel closes, so Azurite
 * never outlives the dev host, even when the dev host is killed with SIGKILL.
 */
process.on('disconnect', () => process.exit(0));
require('azurite/dist/src/azurite.js');
