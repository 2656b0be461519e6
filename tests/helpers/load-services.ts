import { allServices } from '../../functions/registry';

/**
 * Mutation testing only (stryker.config.mjs loads it before each test file): every service module
 * is loaded before the file's first test, so code that runs while modules load (schemas, route
 * tables, constants) counts as loaded once per file and never as covered by whichever test happened
 * to load a module first (a test host serving one service, then the contract check loading the
 * others). Stryker then runs a mutant only against the tests that really reach it.
 */
allServices();
