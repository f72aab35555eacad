package io.cyclium.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class DeferredUpdatesTest {

    private static List<NativeSql> work(String name, String lockedClaim) {
        NativeSql s = NativeSql.numbered("UPDATE t SET n = ?1", name);
        return lockedClaim == null ? List.of(s) : List.of(NativeSql.numbered("INSERT INTO s VALUES (?1)", name), s.lockingClaim(lockedClaim));
    }

    private static List<Object> names(List<List<NativeSql>> works) {
        return works.stream().map(w -> w.get(w.size() - 1).parameters().get(0)).toList();
    }

    @Test
    void works_that_lock_no_lease_keep_their_order_ahead_of_those_that_do_which_go_in_key_order() {
        List<List<NativeSql>> works = List.of(work("settle-b", "episode:b"), work("insert-1", null),
                work("settle-a", "episode:a"), work("insert-2", null), work("settle-c", "episode:c"));

        assertThat(names(DeferredUpdates.inLockOrder(works)))
                .containsExactly("insert-1", "insert-2", "settle-a", "settle-b", "settle-c");
    }

    @Test
    void lease_keys_are_ordered_by_their_utf8_bytes_as_postgresql_orders_them_with_collate_c() {
        // U+FF5E is EF BD 9E in UTF-8, U+1F600 is F0 9F 98 80: bytes put the first ahead, while
        // Java's String order (UTF-16, a surrogate D83D against FF5E) would put the second ahead
        String fullwidthTilde = "episode:\uFF5E";
        String emoji = "episode:\uD83D\uDE00";
        assertThat(emoji.compareTo(fullwidthTilde)).as("what String order would say").isNegative();

        List<List<NativeSql>> works = List.of(work("emoji", emoji), work("tilde", fullwidthTilde), work("ascii", "episode:z"));

        assertThat(names(DeferredUpdates.inLockOrder(works))).containsExactly("ascii", "tilde", "emoji");
    }

    @Test
    void a_batch_without_lease_settles_is_left_as_it_came() {
        List<List<NativeSql>> works = List.of(work("insert-2", null), work("insert-1", null));

        assertThat(DeferredUpdates.inLockOrder(works)).isSameAs(works);
    }
}
