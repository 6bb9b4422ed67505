import type { ServiceEvents } from '../../platform/events/types.ts';
import type { Centres } from '../centres/index.ts';
import { stageLabels, type StageKey } from './lifecycle.ts';

/** The data of an application.* event (service.ts publishes it with each move). */
interface MoveData {
  applicationId: string;
  type: string;
  centreId: string;
  candidateUserId: string;
  from: StageKey;
  to: StageKey | 'rejected' | 'certified' | 'withdrawn';
}

const stage = (key: string) => stageLabels[key as StageKey] ?? key;

/** What the candidate is told of each move of their application: a title and a line, from the move. */
const candidateNotices = {
  'application.submitted': (m: MoveData, centre: string) => ({
    title: 'Application submitted',
    description: `Your ${m.type} application to ${centre} was submitted. Pay the application fee to move it on.`,
  }),
  'application.paid': (m: MoveData, centre: string) => ({
    title: 'Payment received',
    description: `${centre} received your payment for your ${m.type} application. It is now at ${stage(m.to)}.`,
  }),
  'application.stage_changed': (m: MoveData, centre: string) => ({
    title: 'Your application moved on',
    description: `Your ${m.type} application at ${centre} is now at ${stage(m.to)}.`,
  }),
  'application.rejected': (m: MoveData, centre: string) => ({
    title: 'Application not approved',
    description: `Your ${m.type} application at ${centre} was not approved at ${stage(m.from)}. You may appeal the decision.`,
  }),
  'application.certified': (m: MoveData, centre: string) => ({
    title: 'Application certified',
    description: `Your ${m.type} application at ${centre} is certified. The certificate the awarding body issued is with the application.`,
  }),
} as const;

/**
 * The candidate is told of their application's moves (submitted, paid, moved on, rejected, certified)
 * through the one send path: `notification.requested`, in the consumer's transaction, for the inbox and
 * by email as the candidate's channel preferences allow (the Orchestrator applies them).
 */
export function subscribeCandidateNotices(
  events: ServiceEvents,
  centres: Pick<Centres, 'findAll'>,
  webUrl: string,
): void {
  for (const [type, notice] of Object.entries(candidateNotices)) {
    events.subscribe(type as keyof typeof candidateNotices, 'cap.notify-candidate', async (event, transaction) => {
      const move = event.data as unknown as MoveData;
      const [centre] = await centres.findAll([move.centreId]);
      await events.publish(transaction, 'notification.requested', {
        userId: move.candidateUserId,
        template: event.type,
        category: 'application',
        ...notice(move, centre?.name ?? 'the centre'),
        link: webUrl ? `${webUrl}/dashboard/applications/${encodeURIComponent(move.applicationId)}` : null,
        metadata: { applicationId: move.applicationId, centreId: move.centreId, stageKey: move.to },
        channels: ['in_app', 'email'],
      });
    });
  }
}
