import { z } from 'zod';
import { EVENT_CONSUMERS, producerOf } from './event-catalogue.js';
import { EVENT_SCHEMAS } from './event-schemas.js';
import { STREAMS, type EventSubject, type StreamName } from './events.js';

// The event catalogue as an AsyncAPI 3 document, generated from the schemas consumers check
// events against (event-schemas.ts), the streams (events.ts) and who publishes and consumes
// (event-catalogue.ts). `npm run asyncapi:gen` writes contracts/asyncapi.json; CI checks it is current.

const channelId = (subject: string) => subject.replace(/\./g, '_');

function streamOf(subject: string): StreamName {
  const found = (Object.keys(STREAMS) as StreamName[]).find((name) =>
    STREAMS[name].subjects.some((p) => subject.startsWith(p.replace(/>$/, ''))),
  );
  if (!found) throw new Error(`no stream takes ${subject}`);
  return found;
}

export function asyncApiDocument(version: string): Record<string, unknown> {
  const subjects = Object.keys(EVENT_SCHEMAS).sort() as EventSubject[];
  const channels: Record<string, unknown> = {};
  const operations: Record<string, unknown> = {};
  const messages: Record<string, unknown> = {};
  const schemas: Record<string, unknown> = {};
  for (const subject of subjects) {
    const id = channelId(subject);
    const stream = streamOf(subject);
    const { $schema: _drop, ...data } = z.toJSONSchema(EVENT_SCHEMAS[subject], { io: 'input' }) as Record<
      string,
      unknown
    >;
    schemas[id] = {
      type: 'object',
      required: ['id', 'subject', 'occurredAt', 'data'],
      properties: {
        id: {
          type: 'string',
          description: 'unique per event; also the JetStream message id (duplicates are dropped)',
        },
        subject: { const: subject },
        occurredAt: { type: 'string', format: 'date-time' },
        data,
      },
    };
    messages[id] = {
      name: subject,
      contentType: 'application/json',
      headers: {
        type: 'object',
        properties: {
          'Coffer-Event': { const: subject },
          'x-request-id': {
            type: 'string',
            description: 'the request that caused the event, when there was one',
          },
          traceparent: { type: 'string', description: 'W3C trace context, with tracing on' },
        },
      },
      payload: { $ref: `#/components/schemas/${id}` },
    };
    channels[id] = {
      address: subject,
      description: `Stream ${stream} (${STREAMS[stream].maxAgeHours} h, ${STREAMS[stream].maxBytes} bytes at most).`,
      messages: { [id]: { $ref: `#/components/messages/${id}` } },
    };
    const producer = producerOf(subject);
    operations[`${channelId(producer)}_sends_${id}`] = {
      action: 'send',
      summary: `${producer} publishes ${subject}`,
      channel: { $ref: `#/channels/${id}` },
      messages: [{ $ref: `#/channels/${id}/messages/${id}` }],
    };
    for (const c of EVENT_CONSUMERS.filter((e) => e.subjects.includes(subject))) {
      operations[`${channelId(c.durable)}_receives_${id}`] = {
        action: 'receive',
        summary: `${c.service} consumes ${subject} (durable consumer ${c.durable} on stream ${c.stream})`,
        channel: { $ref: `#/channels/${id}` },
        messages: [{ $ref: `#/channels/${id}/messages/${id}` }],
      };
    }
  }
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Coffer events',
      version,
      description:
        'The events Coffer services publish on NATS JetStream, one stream per domain. Consumers check each payload against its schema; a malformed event or one whose handler fails max_deliver times goes to the DEADLETTER stream (docs/runbook.md).',
    },
    defaultContentType: 'application/json',
    servers: { nats: { host: 'nats:4222', protocol: 'nats', description: 'the NATS server with JetStream' } },
    channels,
    operations,
    components: { messages, schemas },
  };
}
