export { CATALOG, catalogEntry, type CatalogWorkflow } from './catalog/index';
