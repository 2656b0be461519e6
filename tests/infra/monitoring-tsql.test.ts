import { describeWithTsql, expectValidTsql, recordAzureSql } from '../helpers/tsql';

/** The backlog count the payment timer runs on every tick, compiled for Azure SQL and parsed as T-SQL. */
const { statements, db } = recordAzureSql({ sync_state: 'pending', payments: 3, oldest: new Date('2026-11-23T11:40:00.000Z') });

describeWithTsql('the payment backlog query', (tsql) => {
  it('counts the plan-sync backlog with valid T-SQL, and reads tedious Date values', async () => {
    const { syncBacklog } = require('../../functions/payment/backlog') as typeof import('../../functions/payment/backlog');
    expect(await syncBacklog(db, new Date('2026-11-23T12:00:00.000Z'))).toEqual({ syncsPending: 3, oldestPendingSeconds: 1200, manualReview: 0 });
    await expectValidTsql(tsql(), statements, ['select']);
    expect(statements[0].sql).toContain(`group by "sync_state"`);
  });
});
