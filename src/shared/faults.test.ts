import { describe, expect, it } from 'vitest';
import { asFault, faultOf, isClosedDatabase, StorageFullError, UnavailableError } from './faults.js';
import { AppError } from './errors.js';

const coded = (code: string, message = code) => Object.assign(new Error(message), { code });

describe('faultOf', () => {
  it('recognises a store that is away: pg SQLSTATEs, socket errors, pg driver messages', () => {
    for (const err of [coded('57P01'), coded('57P03'), coded('08006'), coded('ECONNREFUSED'), coded('ECONNRESET'), new Error('Connection terminated unexpectedly'), new Error('timeout exceeded when trying to connect'), coded('SQLITE_IOERR_WRITE')]) {
      expect(faultOf(err), String(err)).toBe('unavailable');
    }
  });

  it('recognises PostgreSQL refusing connections: classes 08 and 53, 57P0x, 55000 "not accepting connections"; a closed database', () => {
    for (const err of [coded('08001'), coded('08P01'), coded('53300', 'sorry, too many clients already'), coded('53000'), coded('53200'), coded('57P02'),
      coded('55000', 'database "x" is not currently accepting connections'), new Error('driver has already been destroyed'),
      new Error('Cannot use a pool after calling end on the pool'), new TypeError('The database connection is not open')]) {
      expect(faultOf(err), String(err)).toBe('unavailable');
    }
    // 55000 for anything but a refused connection is an error of the statement.
    expect(faultOf(coded('55000', 'currval of sequence "s" is not yet defined in this session'))).toBeUndefined();
    expect(isClosedDatabase(new UnavailableError('database', new Error('driver has already been destroyed')))).toBe(true);
    expect(isClosedDatabase(coded('ECONNREFUSED'))).toBe(false);
  });

  it('recognises a full disk: SQLite, the file system, PostgreSQL', () => {
    for (const err of [coded('SQLITE_FULL'), coded('ENOSPC'), coded('EDQUOT'), coded('53100')]) expect(faultOf(err)).toBe('storage-full');
  });

  it('looks through causes, and leaves bad input and bugs alone', () => {
    expect(faultOf(new Error('wrapped', { cause: coded('ECONNREFUSED') }))).toBe('unavailable');
    expect(faultOf(coded('23505', 'duplicate key'))).toBeUndefined();
    expect(faultOf(new AppError(81058, 'An identical record already exists.'))).toBeUndefined();
    expect(faultOf(new TypeError('x is not a function'))).toBeUndefined();
    expect(faultOf(coded('SQLITE_CONSTRAINT_UNIQUE'))).toBeUndefined();
  });

  it('asFault wraps raw faults for a component and keeps fault errors as they are', () => {
    const wrapped = asFault(coded('ECONNREFUSED'), 'database');
    expect(wrapped).toBeInstanceOf(UnavailableError);
    expect(wrapped).toMatchObject({ code: 1280, status: 503, component: 'database', retryAfterSeconds: 5 });
    expect(asFault(coded('ENOSPC'), 'disk')).toMatchObject({ code: 1281, status: 507 });
    const full = new StorageFullError();
    expect(asFault(full, 'database')).toBe(full);
    expect(asFault(new Error('bug'), 'database')).toBeUndefined();
  });
});
