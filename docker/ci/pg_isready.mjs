#!/usr/bin/env node
// `pg_isready` for the check's PostgreSQL image: exit 0 once the server accepts a connection on 5432
// (it listens only when it can serve), 2 otherwise. Arguments are accepted and ignored.
import net from 'node:net';

const socket = net.connect(5432, '127.0.0.1');
socket.setTimeout(2000, () => process.exit(2));
socket.once('connect', () => process.exit(0));
socket.once('error', () => process.exit(2));
