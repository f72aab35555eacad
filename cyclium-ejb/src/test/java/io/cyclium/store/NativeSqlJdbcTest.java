package io.cyclium.store;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class NativeSqlJdbcTest {

    @Test
    void numbered_parameters_become_jdbc_placeholders_with_the_values_in_the_order_of_the_text() {
        NativeSql.Jdbc jdbc = NativeSql.numbered("UPDATE t SET a = ?2, b = ?1 WHERE id = ?3 AND owner = ?2", "one", "two", 3L).jdbc();

        assertThat(jdbc.text()).isEqualTo("UPDATE t SET a = ?, b = ? WHERE id = ? AND owner = ?");
        assertThat(jdbc.parameters()).containsExactly("two", "one", 3L, "two");
    }

    @Test
    void the_same_text_with_other_values_takes_its_own_values_each_time() {
        String text = "INSERT INTO t (id, n) VALUES (?1, ?2)";

        NativeSql.Jdbc first = NativeSql.numbered(text, "a", 1).jdbc();
        NativeSql.Jdbc second = NativeSql.numbered(text, "b", 2).jdbc();

        assertThat(first.parameters()).containsExactly("a", 1);
        assertThat(second.parameters()).containsExactly("b", 2);
        assertThat(second.text()).isEqualTo(first.text()).isEqualTo("INSERT INTO t (id, n) VALUES (?, ?)");
    }

    @Test
    void a_statement_built_piece_by_piece_converts_as_its_whole_text() {
        NativeSql built = NativeSql.numbered("SELECT 1 FROM t WHERE a = ?1", "x");
        NativeSql other = NativeSql.numbered("SELECT 1 FROM t WHERE a = ?1 AND b = ?2", "x", "y");

        assertThat(built.jdbc().parameters()).containsExactly("x");
        assertThat(other.jdbc().text()).isEqualTo("SELECT 1 FROM t WHERE a = ? AND b = ?");
        assertThat(other.jdbc().parameters()).containsExactly("x", "y");
    }

    @Test
    void an_appended_statement_keeps_its_values_with_its_parameters_numbered_after_the_first_s() {
        NativeSql first = NativeSql.numbered("WITH a AS (UPDATE t SET x = ?1 WHERE id = ?2 RETURNING 1), ", "x", "id");
        NativeSql second = NativeSql.numbered("b AS (UPDATE u SET y = ?2, z = ?1 WHERE k = ?10)", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10);

        NativeSql.Jdbc both = first.append(second).sql(" SELECT 1").jdbc();

        assertThat(first.text()).isEqualTo("WITH a AS (UPDATE t SET x = ?1 WHERE id = ?2 RETURNING 1), "
                + "b AS (UPDATE u SET y = ?4, z = ?3 WHERE k = ?12) SELECT 1");
        assertThat(both.parameters()).containsExactly("x", "id", 2, 1, 10);
    }
}
