/** The errors of unique violations on the accounts' tables (users, tokens, accounts, memberships), told to the data layer. */
import { ALREADY_EXISTS, describeUniqueKeys } from '../db/unique-violation.js';

describeUniqueKeys({
  users: { code: ALREADY_EXISTS, message: 'A user with this e-mail address already exists' },
  api_tokens: { code: ALREADY_EXISTS, message: 'This API token already exists' },
  accounts: { code: ALREADY_EXISTS, message: 'This account already exists' },
  memberships: { code: ALREADY_EXISTS, message: 'The user is already a member of this account' },
});
