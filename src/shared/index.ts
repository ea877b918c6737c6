export * from './tools';
export * from './errors';
export * from './events';
