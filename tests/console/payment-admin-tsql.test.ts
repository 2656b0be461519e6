import { describeWithTsql, expectValidTsql, recordAzureSql, usePaymentCompileSettings } from '../helpers/tsql';

/** The payment admin routes' own query (the per-state count; the list is unsyncedPayments, compiled in tests/payment) for Azure SQL, parsed as T-SQL. */
const { statements, db } = recordAzureSql({ sync_state: 'failed', count: 3 });

usePaymentCompileSettings();

describeWithTsql('the payment admin count', (tsql) => {
  test('counts by sync state: one grouped statement, valid T-SQL', async () => {
    const { countsByState } = require('../../functions/payment/admin');
    expect(await countsByState(db)).toEqual({ pending: 0, failed: 3, manual_review: 0 });
    await expectValidTsql(tsql(), statements, ['select']);
    expect(statements[0].sql).toMatch(/group by/i);
  });
});
