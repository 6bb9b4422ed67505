import { DataTypes, type QueryInterface } from 'sequelize';

const schema = 'ol';
const conversations = { tableName: 'conversations', schema };
const participants = { tableName: 'conversation_participants', schema };
const messages = { tableName: 'conversation_messages', schema };
const timestamps = {
  created_at: { type: DataTypes.DATE, allowNull: false },
  updated_at: { type: DataTypes.DATE, allowNull: false },
};

/** Conversation threads, who takes part in each (and how far they have read), and their messages. */
export async function up({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.createTable(conversations, {
    id: { type: DataTypes.STRING(26), primaryKey: true, allowNull: false },
    subject: { type: DataTypes.STRING(200), allowNull: true },
    created_by: { type: DataTypes.STRING(26), allowNull: false },
    // The newest message's id (ULIDs sort by time): threads list by it.
    last_message_id: { type: DataTypes.STRING(26), allowNull: false },
    ...timestamps,
  });
  await q.createTable(participants, {
    conversation_id: {
      type: DataTypes.STRING(26),
      primaryKey: true,
      allowNull: false,
      references: { model: conversations, key: 'id' },
      onDelete: 'CASCADE',
    },
    user_id: { type: DataTypes.STRING(26), primaryKey: true, allowNull: false },
    last_read_message_id: { type: DataTypes.STRING(26), allowNull: true },
    ...timestamps,
  });
  await q.addIndex(participants, ['user_id'], { name: 'conversation_participants_user' });
  await q.createTable(messages, {
    id: { type: DataTypes.STRING(26), primaryKey: true, allowNull: false },
    conversation_id: {
      type: DataTypes.STRING(26),
      allowNull: false,
      references: { model: conversations, key: 'id' },
      onDelete: 'CASCADE',
    },
    sender_id: { type: DataTypes.STRING(26), allowNull: false },
    body: { type: DataTypes.TEXT, allowNull: false },
    attachments: { type: DataTypes.JSONB, allowNull: false },
    ...timestamps,
  });
  await q.addIndex(messages, ['conversation_id', 'id'], { name: 'conversation_messages_thread' });
}

export async function down({ context: q }: { context: QueryInterface }): Promise<void> {
  for (const table of [messages, participants, conversations]) await q.dropTable(table);
}
