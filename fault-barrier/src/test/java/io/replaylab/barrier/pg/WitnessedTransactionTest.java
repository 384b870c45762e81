package io.replaylab.barrier.pg;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;

/** One reading of what a witnessed transaction did: the proxy's statement faults, the lab's timeline and its set-up filter share it. */
class WitnessedTransactionTest {
    @Test
    void transactionControlInAnyOfItsSpellingsIsNoWorkAndAStatementThatMerelyContainsItsWordsIs() {
        for (String control : List.of("BEGIN", " begin isolation level serializable", "START TRANSACTION", "COMMIT", "end;", "ROLLBACK",
                "abort", "SAVEPOINT s1", "release savepoint s1", "PREPARE TRANSACTION 'x'")) {
            assertThat(WitnessedTransaction.isControl(control)).as(control).isTrue();
        }
        for (String work : List.of("INSERT INTO inbox VALUES ($1)", "select 1", "DO $$ BEGIN RAISE EXCEPTION 'x'; END $$",
                "UPDATE account SET balance = balance + 1", "beginning_balance")) {
            assertThat(WitnessedTransaction.isControl(work)).as(work).isFalse();
        }
    }

    @Test
    void aDriversSetUpIsNoWorkAndATransactionWithSavepointsKeepsItsStatementsAndParameters() {
        WitnessedTransaction setUp = new WitnessedTransaction("A", 1, Instant.now(), WitnessedTransaction.Outcome.COMMITTED, "",
                List.of("SET extra_float_digits = 3", "BEGIN", "SHOW TRANSACTION ISOLATION LEVEL", "COMMIT"));
        WitnessedTransaction work = new WitnessedTransaction("A", 1, Instant.now(), WitnessedTransaction.Outcome.COMMITTED, "",
                List.of("BEGIN", "SAVEPOINT s", "INSERT INTO inbox VALUES ($1)", "$1=id-7", "RELEASE SAVEPOINT s", "COMMIT"));

        assertThat(setUp.setUpOnly()).isTrue();
        assertThat(work.setUpOnly()).isFalse();
        assertThat(WitnessedTransaction.work(work.statements())).containsExactly("INSERT INTO inbox VALUES ($1)", "$1=id-7");
    }
}
