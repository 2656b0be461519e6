/**
 * The local AI stand-in: a server speaking the OpenAI chat-completions protocol, for the tests (which
 * script its answers) and for `npm start` without an AI account: `npm run ai:local [-- --port 7075]`
 * runs it on its own, and ORCHESTRATOR_AI_ENDPOINT=http://127.0.0.1:7075/v1 points the orchestrator
 * at it. Asked for structured output, it answers JSON matching the schema, its sentences in the
 * language the schema names (de, fr, es, ja, zh, else English), so a report in the client's language
 * can be made and read end to end without a model.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';

/**
 * `text`: what every string of a structured answer holds (default: "AI text for <section>.", or a
 * sentence in the language the request's schema asks for: see `sectionText`).
 */
export type ChatReply =
  | { status: 200; content?: string; text?: string; tokens?: number; delayMs?: number }
  | { status: number; retryAfter?: string; body?: unknown }
  | 'hang';

type JsonSchema = { type?: string; properties?: Record<string, JsonSchema>; required?: string[]; items?: JsonSchema; enum?: unknown[] };

/**
 * What the stand-in writes for a section when the script gives no text, in the language the
 * structured-output schema names (its `language` enum): real sentences, so a report in that
 * language can be read end to end. English keeps "AI text for <section>.", which tests look for.
 */
export function sectionText(language: string, section: string): string {
  switch (language) {
    case 'de':
      return `Im Abschnitt „${section}“ zeigt sich, dass der Umsatz stetig gewachsen ist und die Nettomarge sich verbessert hat.`;
    case 'fr':
      return `La section « ${section} » montre que le chiffre d’affaires a progressé régulièrement et que la marge nette s’est améliorée.`;
    case 'es':
      return `La sección «${section}» muestra que los ingresos han crecido de forma constante y que el margen neto ha mejorado.`;
    case 'ja':
      return `「${section}」では、売上高が着実に伸びており、純利益率も改善していることが分かります。`;
    case 'zh':
      return `“${section}”部分显示，营业收入稳步增长，净利润率也有所提高。`;
    default:
      return `AI text for ${section}.`;
  }
}

export interface ChatServer {
  url: string;
  /** Arrival time (ms) and parsed body of every request; for one left unanswered, when the client gave up on it. */
  requests: {
    at: number;
    closedAt?: number;
    body: {
      model: string;
      messages: { role: string; content: string }[];
      response_format?: { type: string; json_schema?: { name: string; strict?: boolean; schema: JsonSchema } };
    };
  }[];
  /** Answers in order; the last one repeats. */
  script(replies: ChatReply[]): void;
  close(): Promise<void>;
}

/**
 * The smallest value of a JSON Schema with `text` in every string, as a model in structured-output
 * mode answers: what the server says when the request asks for a json_schema response format and
 * the script gives no content.
 */
function instanceOf(schema: JsonSchema, text: string): unknown {
  switch (schema.type) {
    case 'object':
      return Object.fromEntries((schema.required ?? Object.keys(schema.properties ?? {})).map((k) => [k, instanceOf(schema.properties?.[k] ?? {}, text)]));
    case 'array':
      return [instanceOf(schema.items ?? {}, text)];
    case 'number':
    case 'integer':
      return 1;
    case 'boolean':
      return true;
    default:
      return schema.enum ? schema.enum[0] : text;
  }
}

/**
 * A local server speaking the OpenAI chat-completions protocol (POST /v1/chat/completions): a
 * completion with usage, an error body with status and Retry-After, or no answer at all. Asked for
 * structured output (response_format json_schema), its default answer is JSON matching the schema.
 */
export async function startChatServer(port = 0): Promise<ChatServer> {
  let replies: ChatReply[] = [{ status: 200 }];
  const requests: ChatServer['requests'] = [];
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'not found' } }));
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const request: ChatServer['requests'][number] = { at: Date.now(), body };
      requests.push(request);
      const reply = replies.length > 1 ? replies.shift()! : replies[0];
      if (reply === 'hang') {
        hanging.add(res);
        res.once('close', () => {
          if (hanging.delete(res)) request.closedAt = Date.now();
        });
        return;
      }
      if (reply.status !== 200) {
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if ('retryAfter' in reply && reply.retryAfter !== undefined) headers['retry-after'] = reply.retryAfter;
        res.writeHead(reply.status, headers).end(
          JSON.stringify(
            ('body' in reply && reply.body) || {
              error: { message: reply.status === 429 ? 'Rate limit reached for requests' : 'The server had an error', type: 'server_error' },
            },
          ),
        );
        return;
      }
      const section = /Section: (.*)/.exec(body.messages[1]?.content ?? '')?.[1] ?? 'section';
      const language = body.response_format?.json_schema?.schema.properties?.language?.enum?.[0];
      const defaultText = sectionText(typeof language === 'string' ? language : 'en', section);
      const tokens = ('tokens' in reply && reply.tokens) || 120;
      const delayMs = ('delayMs' in reply && reply.delayMs) || 0;
      setTimeout(
        () =>
          res.writeHead(200, { 'content-type': 'application/json' }).end(
            JSON.stringify({
              id: `chatcmpl-${requests.length}`,
              object: 'chat.completion',
              created: Math.floor(Date.now() / 1000),
              model: body.model,
              choices: [
                {
                  index: 0,
                  finish_reason: 'stop',
                  message: {
                    role: 'assistant',
                    content:
                      ('content' in reply && reply.content) ||
                      (body.response_format?.type === 'json_schema' && body.response_format.json_schema
                        ? JSON.stringify(instanceOf(body.response_format.json_schema.schema, ('text' in reply && reply.text) || defaultText))
                        : defaultText),
                  },
                },
              ],
              usage: { prompt_tokens: tokens - 20, completion_tokens: 20, total_tokens: tokens },
            }),
          ),
        delayMs,
      );
    });
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  const address = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}/v1`,
    requests,
    script: (next) => {
      replies = [...next];
    },
    close: () =>
      new Promise<void>((resolve) => {
        hanging.forEach((res) => res.destroy());
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** `npm run ai:local [-- --port 7075]`: the stand-in on its own until Ctrl-C, forgetting what it was asked (no test reads it). */
async function main(): Promise<void> {
  const { values } = parseArgs({ options: { port: { type: 'string', default: '7075' } } });
  const server = await startChatServer(Number(values.port));
  const forget = setInterval(() => (server.requests.length = 0), 60_000);
  process.stdout.write(
    `local AI stand-in ${server.url}\n  set ORCHESTRATOR_AI_ENDPOINT=${server.url} (local.settings.json) and npm start\nPress Ctrl-C to stop.\n`,
  );
  const stop = () => {
    clearInterval(forget);
    void server.close().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

if (require.main === module)
  main().catch((error) => {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exitCode = 1;
  });
