/**
 * Computes argon2id hashes with the gateway's parameters, one after another, until killed: the CPU and
 * memory load of a login flood without the gateway doing anything (bench/login.ts runs it as a control).
 */
import argon2 from 'argon2';
import { ARGON2_PARAMS } from '../../plugins/auth/src/service/password-hasher.ts';

for (;;) await argon2.hash('bench violet umbrella 42', ARGON2_PARAMS);
