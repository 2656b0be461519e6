import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { InvocationContext } from '@azure/functions';
import type { DequeuedMessageItem, QueueClient } from '@azure/storage-queue';
import { resolveAppSetting, type QueueFunction } from '../shared/functions';
import { settingDefaults } from '../shared/config';
import { SETTINGS } from '../functions/settings';
import type { Logger } from '../shared/logging';
import { queue } from '../shared/storage';
import { PROJECT_ROOT } from './paths';

/** The Storage Queues extension's settings (host.json `extensions.queues`), with its defaults. */
export interface QueueSettings {
  batchSize: number;
  maxDequeueCount: number;
  /** Seconds a failed message stays invisible before its retry. */
  visibilityTimeoutSeconds: number;
  maxPollingIntervalMs: number;
}

/** host.json TimeSpan "hh:mm:ss" to milliseconds. */
function timespanMs(value: string | undefined, fallback: number): number {
  const m = value ? /^(\d+):(\d+):(\d+)$/.exec(value) : null;
  return m ? ((+m[1] * 60 + +m[2]) * 60 + +m[3]) * 1000 : fallback;
}

/** The project's host.json `extensions.queues`, with the extension's defaults where unset. */
export function hostJsonQueueSettings(): QueueSettings {
  const hostJson = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'host.json'), 'utf8'));
  const q = hostJson.extensions?.queues ?? {};
  return {
    batchSize: q.batchSize ?? 16,
    maxDequeueCount: q.maxDequeueCount ?? 5,
    visibilityTimeoutSeconds: timespanMs(q.visibilityTimeout, 0) / 1000,
    maxPollingIntervalMs: timespanMs(q.maxPollingInterval, 60_000),
  };
}

/** While a message is being processed it is hidden this long (the host renews at half of it; runs here are shorter). */
const PROCESSING_VISIBILITY_SECONDS = 600;
const MIN_POLL_MS = 50;

export interface QueueHandle {
  stop(): Promise<void>;
}

function decode(messageText: string): unknown {
  const text = Buffer.from(messageText, 'base64').toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * Polls Azurite for each queue function with the Functions host's semantics: batches, the poll
 * interval backing off while the queue is empty, a failed message made visible again after the
 * visibility timeout, and on its last allowed dequeue moved to `<queue>-poison`.
 */
export function startQueuePollers(
  functions: QueueFunction[],
  settings: QueueSettings,
  log: Logger,
  appSettings: Readonly<Record<string, string | undefined>>,
): QueueHandle {
  let stopped = false;
  const inFlight = new Set<Promise<void>>();
  const sleepers = new Set<() => void>();

  async function processMessage(fn: QueueFunction, client: QueueClient, message: DequeuedMessageItem): Promise<void> {
    const context = new InvocationContext({
      invocationId: randomUUID(),
      functionName: fn.name,
      triggerMetadata: {
        id: message.messageId,
        dequeueCount: message.dequeueCount,
        insertionTime: message.insertedOn,
        expirationTime: message.expiresOn,
        popReceipt: message.popReceipt,
      },
    });
    try {
      await fn.handler(decode(message.messageText), context);
      await client.deleteMessage(message.messageId, message.popReceipt);
    } catch (error) {
      if (message.dequeueCount >= settings.maxDequeueCount) {
        const poison = await queue(`${fn.queueName}-poison`);
        await poison.sendMessage(message.messageText);
        await client.deleteMessage(message.messageId, message.popReceipt);
        log.error('queue message moved to poison queue', {
          function: fn.name,
          queue: fn.queueName,
          messageId: message.messageId,
          dequeueCount: message.dequeueCount,
          error,
        });
      } else {
        await client.updateMessage(message.messageId, message.popReceipt, undefined, settings.visibilityTimeoutSeconds);
        log.warn('queue message failed; it will be retried', {
          function: fn.name,
          queue: fn.queueName,
          messageId: message.messageId,
          dequeueCount: message.dequeueCount,
          error,
        });
      }
    }
  }

  async function poll(fn: QueueFunction): Promise<void> {
    let delay = MIN_POLL_MS;
    while (!stopped) {
      let received: DequeuedMessageItem[] = [];
      let client: QueueClient | undefined;
      try {
        client = await queue(fn.queueName);
        received = (await client.receiveMessages({ numberOfMessages: settings.batchSize, visibilityTimeout: PROCESSING_VISIBILITY_SECONDS }))
          .receivedMessageItems;
      } catch (error) {
        if (!stopped) log.warn('queue poll failed', { queue: fn.queueName, error });
      }
      if (received.length && client) {
        delay = MIN_POLL_MS;
        const batch = Promise.all(
          received.map((m) => processMessage(fn, client!, m).catch((error) => log.error('queue bookkeeping failed', { queue: fn.queueName, error }))),
        ).then(() => undefined);
        inFlight.add(batch);
        await batch;
        inFlight.delete(batch);
        continue;
      }
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          sleepers.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, delay);
        sleepers.add(wake);
      });
      delay = Math.min(delay * 2, settings.maxPollingIntervalMs);
    }
  }

  const loops = functions.map((fn) => poll({ ...fn, queueName: resolveAppSetting(fn.queueName, { ...settingDefaults(SETTINGS), ...appSettings }) }));
  return {
    async stop() {
      stopped = true;
      sleepers.forEach((wake) => wake());
      await Promise.allSettled([...inFlight]);
      await Promise.race([Promise.allSettled(loops), new Promise((r) => setTimeout(r, 1000))]);
    },
  };
}
