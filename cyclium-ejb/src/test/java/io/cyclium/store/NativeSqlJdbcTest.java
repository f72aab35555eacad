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
}
