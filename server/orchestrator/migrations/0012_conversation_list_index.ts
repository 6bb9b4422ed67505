import type { QueryInterface } from 'sequelize';

const conversations = { tableName: 'conversations', schema: 'ol' };

/** A reader's threads are listed by their last message: walked in that order, each checked for the reader. */
export async function up({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.addIndex(conversations, ['last_message_id', 'id'], { name: 'conversations_last_message' });
}

export async function down({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.sequelize.query('DROP INDEX ol.conversations_last_message');
}
