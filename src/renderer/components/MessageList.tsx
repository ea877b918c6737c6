/** The conversation's messages in a virtualized list: user and assistant text, tool cards, errors. */
import { memo, useCallback } from 'react';
import type { MessageItem } from '../../shared/contract';
import { useMessages } from '../state/messages';
import { Markdown } from './Markdown';
import { ToolCard } from './ToolCard';
import { VirtualList } from './VirtualList';

function estimate(item: MessageItem): number {
  switch (item.kind) {
    case 'user':
      return 52 + Math.ceil(item.text.length / 100) * 21;
    case 'assistant': {
      const lines = item.text.split('\n').length;
      return 36 + Math.ceil(item.text.length / 110) * 22 + lines * 4;
    }
    case 'tool':
      return 40;
    case 'error':
      return 48;
  }
}

const Item = memo(function Item({ item }: { item: MessageItem }) {
  switch (item.kind) {
    case 'user':
      return (
        <article className="msg msg-user" aria-label="You">
          <div className="msg-who" aria-hidden="true">
            You
          </div>
          <div className="msg-user-text">{item.text}</div>
        </article>
      );
    case 'assistant':
      return (
        <article className="msg msg-assistant" aria-label="Deskhand">
          <Markdown text={item.text} />
        </article>
      );
    case 'tool':
      return (
        <div className="msg msg-tool">
          <ToolCard item={item} />
        </div>
      );
    case 'error':
      return (
        <div className={`msg msg-${item.severity}`} role={item.severity === 'error' ? 'alert' : 'status'}>
          <strong>{item.severity === 'error' ? 'The run failed: ' : ''}</strong>
          {item.text}
        </div>
      );
  }
});

export function MessageList() {
  const items = useMessages((s) => s.items);
  const generation = useMessages((s) => s.generation);
  const render = useCallback((item: MessageItem) => <Item item={item} />, []);
  return <VirtualList items={items} estimate={estimate} render={render} generation={generation} label="Messages" />;
}
