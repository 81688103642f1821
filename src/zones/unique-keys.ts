/** The errors of unique violations on the zones' tables (a zone of that name, an identical record), told to the data layer. */
import { describeUniqueKeys } from '../db/unique-violation.js';

describeUniqueKeys({
  zones: { code: 1061, message: 'A zone with this name already exists' },
  dns_records: { code: 81058, message: 'An identical record already exists.' },
});
