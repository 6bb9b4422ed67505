import {
  DataTypes,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Model,
  type ModelStatic,
  type Sequelize,
} from 'sequelize';
import { id, reference, timestamps } from '../../platform/db/columns.ts';

/** A file attached to a message: a storage asset of the sender (`id`), or a link the client gave. */
export interface Attachment {
  id?: string;
  name: string;
  url?: string;
  size?: number;
  type?: string;
}

export interface ConversationRow extends Model<
  InferAttributes<ConversationRow>,
  InferCreationAttributes<ConversationRow>
> {
  id: string;
  subject: string | null;
  createdBy: string;
  lastMessageId: string;
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

export interface ParticipantRow extends Model<
  InferAttributes<ParticipantRow>,
  InferCreationAttributes<ParticipantRow>
> {
  conversationId: string;
  userId: string;
  lastReadMessageId: string | null;
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

export interface MessageRow extends Model<InferAttributes<MessageRow>, InferCreationAttributes<MessageRow>> {
  id: string;
  conversationId: string;
  senderId: string;
  body: string;
  attachments: Attachment[];
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

export function defineConversationModels(sequelize: Sequelize) {
  const Conversation = sequelize.define<ConversationRow>(
    'Conversation',
    {
      id: id(),
      subject: { type: DataTypes.STRING(200), allowNull: true },
      createdBy: reference(),
      lastMessageId: reference(),
      ...timestamps(),
    },
    { tableName: 'conversations' },
  );
  const Participant = sequelize.define<ParticipantRow>(
    'ConversationParticipant',
    {
      conversationId: id(),
      userId: id(),
      lastReadMessageId: reference(true),
      ...timestamps(),
    },
    { tableName: 'conversation_participants' },
  );
  const Message = sequelize.define<MessageRow>(
    'ConversationMessage',
    {
      id: id(),
      conversationId: reference(),
      senderId: reference(),
      body: { type: DataTypes.TEXT, allowNull: false },
      attachments: { type: DataTypes.JSONB, allowNull: false },
      ...timestamps(),
    },
    { tableName: 'conversation_messages' },
  );
  return { Conversation, Participant, Message };
}
