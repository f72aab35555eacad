package io.cyclium.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Which works become one statement, and the statement they become (the texts; PostgreSQL runs them in GroupCommitTest). */
class OneStatementWorkTest {

    private static final String FINISH = "UPDATE cyclium_episodes SET status = ?, finished_at = now() WHERE id = ? AND status = 'running'";
    private static final String JOURNAL = "INSERT INTO cyclium_episode_steps (episode_id, step_no) VALUES (?, ?) ON CONFLICT DO NOTHING";
    private static final String SETTLE = "UPDATE cyclium_claims SET state = 'done' WHERE dedupe_key = ? AND fence = ? OR owner_node = ?";

    @Test
    void a_terminal_write_becomes_with_parts_for_all_but_the_last_write_whose_condition_asks_one_row_of_each() {
        assertThat(OneStatementWork.text(List.of(FINISH, JOURNAL, SETTLE))).contains("WITH w1 AS (" + FINISH + " RETURNING 1),"
                + " w2 AS (" + JOURNAL + " RETURNING 1) UPDATE cyclium_claims SET state = 'done'"
                // the last write's own condition in parentheses: its OR must not swallow the parts' checks
                + " WHERE (dedupe_key = ? AND fence = ? OR owner_node = ?)"
                + " AND (SELECT count(*) FROM w1) = 1 AND (SELECT count(*) FROM w2) = 1");
    }

    @Test
    void a_where_inside_parentheses_or_quotes_is_not_the_last_writes_condition() {
        String withSubquery = "UPDATE t SET n = (SELECT max(n) FROM u WHERE u.k = ?) WHERE k = ? AND note <> ' WHERE '";
        assertThat(OneStatementWork.onlyTopLevelWhere(withSubquery)).isEqualTo(withSubquery.indexOf(" WHERE k"));
        assertThat(OneStatementWork.text(List.of(JOURNAL, withSubquery)).orElseThrow())
                .endsWith(" WHERE (k = ? AND note <> ' WHERE ') AND (SELECT count(*) FROM w1) = 1");
    }

    @Test
    void shapes_it_cannot_read_for_sure_stay_separate_statements() {
        // one write: nothing to combine
        assertThat(OneStatementWork.text(List.of(FINISH))).isEmpty();
        // the last write an INSERT: no condition to add the checks to
        assertThat(OneStatementWork.text(List.of(FINISH, JOURNAL))).isEmpty();
        // a write that returns rows of its own, or has a WITH of its own
        assertThat(OneStatementWork.text(List.of(JOURNAL + " RETURNING id", SETTLE))).isEmpty();
        assertThat(OneStatementWork.text(List.of("WITH x AS (SELECT 1) " + JOURNAL, SETTLE))).isEmpty();
        // no WHERE, or two at the top level
        assertThat(OneStatementWork.text(List.of(JOURNAL, "UPDATE t SET n = 1"))).isEmpty();
        assertThat(OneStatementWork.text(List.of(JOURNAL, "UPDATE t SET n = 1 WHERE a = ? UNION WHERE b = ?"))).isEmpty();
        // not a write at all
        assertThat(OneStatementWork.text(List.of("SELECT 1", SETTLE))).isEmpty();
    }
}
