export { ApiError, call, loadConfig, useTokenSource, type ConsoleConfig, type ServiceName } from './http';
export * from './identity';
export * from './orchestrator';
export * from './payment';
