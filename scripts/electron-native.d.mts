/** Types for scripts/electron-native.mjs (imported by the e2e harness and tests). */
export const ROOT: string;
export function electronBinary(root?: string): { path: string | null; reason: string };
export function electronTarget(root?: string): { version: string; abi: string };
export function nativeDir(root?: string, abi?: string): string;
export function sqliteBindingPath(root?: string, abi?: string): string;
export function builtAbi(file: string): string | null;
export function buildElectronNative(root?: string, opts?: { quiet?: boolean }): { ok: boolean; binding: string | null; reason: string };
export function ensureElectronNative(root?: string, opts?: { build?: boolean; quiet?: boolean }): { ok: boolean; binding: string | null; reason: string };
