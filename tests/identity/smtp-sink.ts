import net from 'node:net';

export interface ReceivedMail {
  from: string;
  to: string[];
  data: string;
}

/**
 * What the sink answers instead of accepting, as a server under load does: `greeting` replaces the
 * 220 banner (421: service not available, closing), `rcpt` the answer to RCPT TO (451 4.7.1: try
 * again later; 550: refused for good).
 */
export interface SmtpRefusal {
  greeting?: string;
  rcpt?: string;
}

/**
 * A minimal SMTP server (RFC 5321 without extensions: EHLO/HELO, MAIL, RCPT, DATA, RSET, NOOP, QUIT)
 * that keeps what it receives, so the nodemailer SMTP path is exercised over a real socket.
 * `refuse` makes it answer as a throttling or refusing server until it is called again without one.
 */
export async function startSmtpSink(): Promise<{ port: number; messages: ReceivedMail[]; refuse(refusal?: SmtpRefusal): void; stop(): Promise<void> }> {
  const messages: ReceivedMail[] = [];
  let refusal: SmtpRefusal = {};
  const server = net.createServer((socket) => {
    let buffer = '';
    let current: ReceivedMail = { from: '', to: [], data: '' };
    let inData = false;
    const reply = (line: string) => socket.write(`${line}\r\n`);
    if (refusal.greeting) {
      reply(refusal.greeting);
      socket.end();
      return;
    }
    reply('220 sink ESMTP ready');
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      for (;;) {
        if (inData) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end < 0) return;
          current.data = buffer.slice(0, end).replace(/\r\n\.\./g, '\r\n.');
          buffer = buffer.slice(end + 5);
          messages.push(current);
          current = { from: '', to: [], data: '' };
          inData = false;
          reply('250 2.0.0 queued');
          continue;
        }
        const eol = buffer.indexOf('\r\n');
        if (eol < 0) return;
        const line = buffer.slice(0, eol);
        buffer = buffer.slice(eol + 2);
        const verb = line.slice(0, 4).toUpperCase();
        switch (verb) {
          case 'EHLO':
          case 'HELO':
            reply('250 sink');
            break;
          case 'MAIL':
            current.from = /<([^>]*)>/.exec(line)?.[1] ?? '';
            reply('250 2.1.0 ok');
            break;
          case 'RCPT':
            if (refusal.rcpt) {
              reply(refusal.rcpt);
              break;
            }
            current.to.push(/<([^>]*)>/.exec(line)?.[1] ?? '');
            reply('250 2.1.5 ok');
            break;
          case 'DATA':
            inData = true;
            reply('354 end with <CRLF>.<CRLF>');
            break;
          case 'RSET':
            current = { from: '', to: [], data: '' };
            reply('250 ok');
            break;
          case 'NOOP':
            reply('250 ok');
            break;
          case 'QUIT':
            reply('221 bye');
            socket.end();
            break;
          default:
            reply('502 5.5.2 command not implemented');
        }
      }
    });
    socket.on('error', () => socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    messages,
    refuse: (next: SmtpRefusal = {}) => {
      refusal = next;
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
