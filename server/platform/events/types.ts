import type { Transaction } from 'sequelize';

/** The platform's event types (DESIGN.md section 8). */
export type EventType =
  | 'user.created'
  | 'user.deleted'
  | 'notification.requested'
  | 'payment.completed'
  | 'payment.failed'
  | 'payment.refunded'
  | 'lms.course.completed'
  | 'lms.enrollment.activated'
  | 'application.submitted'
  | 'application.paid'
  | 'application.stage_changed'
  | 'application.forwarded'
  | 'application.certified'
  | 'application.rejected'
  | 'application.withdrawn';

/** The envelope every event travels in. `data` never holds a password, OTP, token or identity number. */
export interface PlatformEvent<T = Record<string, unknown>> {
  id: string;
  type: EventType;
  occurredAt: string;
  /** The producing service: `ol`, `cap` or `lms`. */
  source: string;
  data: T;
}

export type EventHandler = (event: PlatformEvent, transaction: Transaction) => Promise<void>;

/**
 * One service's view of the event bus. Producers write to their own outbox inside the transaction of
 * the change; consumers get each event at least once, and the bus records it in the consumer's inbox
 * in the same transaction as the handler's work, so its effect happens exactly once.
 */
export interface ServiceEvents {
  publish<T extends Record<string, unknown>>(
    transaction: Transaction,
    type: EventType,
    data: T,
  ): Promise<PlatformEvent<T>>;
  /** Register before the service starts; `name` identifies the consumer (its queue), e.g. `cap.provision-user`. */
  subscribe(type: EventType, name: string, handler: EventHandler): void;
}
