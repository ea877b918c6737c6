/** Mission scope globs (kept in runtime/, where the approval engine's scope inspector uses them). */
export { checkGlob, globRegex, globsOverlap, inScope, relativeTo } from '../../runtime/scope-globs';
