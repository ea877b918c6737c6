/**
 * Where and for how long an "always allow" applies (issue 46): scopes this task / this conversation / this folder /
 * everywhere, and a lifetime of an hour, today or until revoked. Number keys 1–4 pick the scope while the card has
 * the focus (DecisionCard); the choice is shown in words before anything is saved.
 */
import { describeAlways } from '../../../shared/always-allow';
import type { GrantLifetime, GrantScope } from '../../../shared/rules';

export const SCOPE_CHOICES: readonly (readonly [GrantScope, string])[] = [
  ['task', 'This task (until the run ends)'],
  ['conversation', 'This conversation'],
  ['workspace', 'Every conversation in this folder'],
  ['everywhere', 'Everywhere'],
];

const LIFETIMES: readonly (readonly [GrantLifetime, string])[] = [
  ['hour', 'An hour'],
  ['today', 'Today'],
  ['until-revoked', 'Until I revoke it'],
];

export function GrantChoice(props: {
  id: string;
  tool: string;
  pattern: string;
  folder: string;
  scope: GrantScope;
  lifetime: GrantLifetime;
  onScope: (s: GrantScope) => void;
  onLifetime: (l: GrantLifetime) => void;
}) {
  const { id, scope, lifetime } = props;
  return (
    <div className="grant-choice" data-testid="grant-choice">
      <fieldset className="rule-scope">
        <legend>Where the rule applies</legend>
        {SCOPE_CHOICES.map(([value, label], i) => (
          <label key={value}>
            <input type="radio" name={`scope-${id}`} value={value} checked={scope === value} onChange={() => props.onScope(value)} /> {value === 'workspace' ? `Every conversation in ${props.folder}` : label}{' '}
            <kbd>{i + 1}</kbd>
          </label>
        ))}
      </fieldset>
      {scope !== 'task' && (
        <fieldset className="rule-lifetime">
          <legend>For how long</legend>
          {LIFETIMES.map(([value, label]) => (
            <label key={value}>
              <input type="radio" name={`lifetime-${id}`} value={value} checked={lifetime === value} onChange={() => props.onLifetime(value)} /> {label}
            </label>
          ))}
        </fieldset>
      )}
      <p className="muted small" data-testid="grant-summary">
        Saves: {describeAlways(props.tool, props.pattern, scope, props.folder, lifetime)}.
      </p>
    </div>
  );
}
