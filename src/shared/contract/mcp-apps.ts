/**
 * The contract's part for MCP Apps (SEP-1865, docs/extensions.md): the view of an MCP tool call, shown in its tool card
 * in a sandboxed frame, and what the view asks of Deskhand through the host bridge — a call of one of its server's
 * tools (judged by the approval engine; an ask waits for the person's answer on the card), and a message to the
 * conversation (sent as the person's, marked untrusted).
 */
import { z } from 'zod';

const callRef = {
  conversationId: z.string().regex(/^conv_[A-Za-z0-9_-]{1,80}$/, 'not a conversation id'),
  runId: z.string().regex(/^run_[A-Za-z0-9_-]{1,80}$/, 'not a run id'),
  callId: z.string().min(1).max(200),
};

/** A tools/call result as a view receives it (MCP CallToolResult). */
const callResult = z.strictObject({ content: z.array(z.unknown()), structuredContent: z.unknown().optional(), isError: z.boolean() });

const viewCallOutcome = z.discriminatedUnion('status', [
  z.strictObject({ status: z.literal('done'), result: callResult }),
  /** The approval engine asks: the card shows the call and its reasons; `answerMcpAppCall` answers. */
  z.strictObject({ status: z.literal('ask'), requestId: z.string(), tool: z.string(), args: z.record(z.string(), z.unknown()), risk: z.string(), reasons: z.array(z.string()) }),
  z.strictObject({ status: z.literal('refused'), reason: z.string() }),
]);
export type McpAppCallOutcome = z.output<typeof viewCallOutcome>;

export const mcpAppMethods = {
  /**
   * The view of an MCP tool call (its tool's `_meta.ui.resourceUri`), or null when the tool has none: a ticketed page
   * for the sandboxed frame, the call's input and result for the bridge, and what of its declared origins and
   * permissions it was granted.
   */
  openMcpApp: {
    params: z.strictObject({ ...callRef, args: z.record(z.string(), z.unknown()).default({}) }),
    result: z.strictObject({
      view: z
        .strictObject({
          url: z.string(),
          server: z.string(),
          tool: z.string(),
          uri: z.string(),
          input: z.record(z.string(), z.unknown()),
          result: callResult.nullable(),
          /**
           * What the view declared and got (`_meta.ui.csp`, `permissions`): the origins its page's policy allows, the
           * Permission Policy features for the frame's `allow`, and the declared entries refused (each with why).
           */
          granted: z.strictObject({ domains: z.array(z.string()), allow: z.array(z.string()), refused: z.array(z.string()) }),
          prefersBorder: z.boolean().nullable(),
        })
        .nullable(),
    }),
  },
  /** A view's tools/call: only its own server's tools the server lets views call; judged like any call. */
  callMcpAppTool: {
    params: z.strictObject({ ...callRef, tool: z.string().min(1).max(200), arguments: z.record(z.string(), z.unknown()).default({}) }),
    result: viewCallOutcome,
  },
  /** The person's answer to a view's call the approval engine asked about. */
  answerMcpAppCall: {
    params: z.strictObject({ requestId: z.string().min(1).max(100), allow: z.boolean() }),
    result: viewCallOutcome,
  },
  /** A view's ui/message: sent to the conversation as the person's message, in an untrusted envelope (the run is tainted). */
  sendMcpAppMessage: {
    params: z.strictObject({ ...callRef, text: z.string().min(1, 'The message is empty.').max(20_000) }),
    result: z.strictObject({ runId: z.string() }),
  },
} as const;
