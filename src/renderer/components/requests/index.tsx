/**
 * The one registry of request cards, by request kind: approvals, secrets, questions, file picks. A kind not listed
 * here (a family newer than this window) gets the fallback card: its prompt, the `deskhand runs answer` command, Deny.
 */
import type { ComponentType } from 'react';
import { AppGrantCard } from './AppGrantCard';
import { DecisionCard } from './DecisionCard';
import { FallbackCard } from './FallbackCard';
import { FilePickCard } from './FilePickCard';
import { QuestionCard, questionsOf } from './QuestionCard';
import { SecretRequestCard } from './SecretRequestCard';
import { PlanCard } from './PlanCard';
import { GoalCard } from './GoalCard';
import { ElicitationCard } from './ElicitationCard';
import type { RequestCardProps } from './shared';

export { RiskBadge } from './shared';

const CARDS: Record<string, ComponentType<RequestCardProps>> = {
  approval: DecisionCard,
  secret: SecretRequestCard,
  question: QuestionCard,
  file_pick: FilePickCard,
  plan: PlanCard,
  goal: GoalCard,
  app_grant: AppGrantCard,
  mcp_elicitation: ElicitationCard,
};

export function RequestCard({ approval, showConversation = false }: { approval: RequestCardProps['approval']; showConversation?: boolean }) {
  let Card = Object.prototype.hasOwnProperty.call(CARDS, approval.kind) ? CARDS[approval.kind]! : FallbackCard;
  // A question request whose data holds no questions cannot be answered here: shown as what it is.
  if (Card === QuestionCard && !questionsOf(approval.data)) Card = FallbackCard;
  return <Card approval={approval} showConversation={showConversation} />;
}
