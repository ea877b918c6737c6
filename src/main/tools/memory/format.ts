import type { MemoryReceipt, MemoryRecord } from '../../services/memory';

export function formatRecord(r: MemoryRecord): string {
  const quote = r.quote ? `\n  from the person's words: "${r.quote}"` : '';
  return `- ${r.id} [${r.kind}, ${r.scope}${r.status === 'active' ? '' : `, ${r.status}`}] ${r.topic}\n  ${r.body.replace(/\n/g, '\n  ')}${quote}`;
}

export function formatReceipt(action: string, receipt: MemoryReceipt): string {
  return `Receipt ${receipt.id}: ${action} ${receipt.memory_id}\n${receipt.diff}`;
}
