/** Tests are compiled by `npm run build` and run as plain JavaScript, so worker threads and child processes execute the same files Azure would. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/dist/tests'],
  testMatch: ['**/*.test.js'],
  testTimeout: 60000,
  maxWorkers: 2,
};
