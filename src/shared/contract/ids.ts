/**
 * The contract's ids and small values: the id shapes main mints (approvals, conversations, runs, tasks), the enums
 * every area shares, and the three building blocks of params and results. Pure TypeScript + zod.
 */
import { z } from 'zod';
import { POLICIES, RISK_TIERS } from '../tools';
import { SANDBOX_MODES } from '../sandbox';
import { PROVIDER_NAMES } from './names';

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
/** Approval ids are minted by main as `apr_<uuid v4>`; anything else is forged and never looked up. */
export const approvalIdSchema = z.string().regex(new RegExp(`^apr_${UUID}$`), 'not an approval id');
export const conversationIdSchema = z.string().regex(/^conv_[A-Za-z0-9_-]{1,80}$/, 'not a conversation id');
export const runIdSchema = z.string().regex(/^run_[A-Za-z0-9_-]{1,80}$/, 'not a run id');
export const policySchema = z.enum(POLICIES);
export const riskSchema = z.enum(RISK_TIERS);
export const providerNameSchema = z.enum(PROVIDER_NAMES);
export const sandboxModeSchema = z.enum(SANDBOX_MODES);
/** A tool family's name as tool-families.ts spells them (main refuses names it does not know, listing the families). */
export const familyNameSchema = z.string().regex(/^[a-z][a-z-]{0,39}$/, 'not a tool family name');
/** Background task ids as minted by main (`cmd_…`, `jobs_…`, `wait_…`), or one job of a batch (`jobs_….2`). */
export const taskIdSchema = z.string().regex(/^(cmd|jobs|wait|sub)_[0-9a-f]{8}(\.\d{1,3})?$/, 'not a background task id');

/** A string of at most `max` characters. */
export const boundedText = (max: number) => z.string().max(max);
/** The params of a method that takes none. */
export const noParams = z.strictObject({});
/** The result of a method that only says it is done. */
export const okResult = z.strictObject({ ok: z.literal(true) });
