package io.cyclium.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.episode.EpisodeFinished;
import jakarta.faces.push.PushContext;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The console's push batches what changed: one message per flush, at most MAX_ITEMS changes and
 * then a "many" that makes the pages reload everything. (Outside a container there is no managed
 * thread for the flusher; the test flushes by hand.)
 */
class ConsolePushTest {

    private final List<Object> messages = new ArrayList<>();
    private final ConsolePush push = new ConsolePush();

    ConsolePushTest() {
        push.pages = (PushContext) Proxy.newProxyInstance(PushContext.class.getClassLoader(),
                new Class<?>[] {PushContext.class}, (proxy, method, args) -> {
                    if (method.getName().equals("send")) {
                        messages.add(args[0]);
                        return null;
                    }
                    return method.getDeclaringClass() == Object.class ? method.invoke(this, args) : null;
                });
    }

    @Test
    void changes_beyond_the_cap_become_one_many_and_the_next_flush_starts_counting_again() {
        for (int i = 0; i < ConsolePush.MAX_ITEMS + 50; i++) {
            push.onEpisodeFinished(finished("e-" + i, "done"));
        }
        push.flush();

        assertThat(messages).hasSize(1);
        List<Object> items = items(messages.get(0));
        assertThat(items).hasSize(ConsolePush.MAX_ITEMS + 1);
        assertThat(items.get(0)).isEqualTo(Map.of("what", "episode", "id", "e-0", "status", "done"));
        assertThat(items.get(ConsolePush.MAX_ITEMS)).isEqualTo(Map.of("what", "many"));

        push.onEpisodeFinished(finished("e-next", "failed"));
        push.flush();
        assertThat(items(messages.get(1))).as("the queue was emptied, so its count too")
                .containsExactly(Map.of("what", "episode", "id", "e-next", "status", "failed"));
        push.flush();
        assertThat(messages).as("nothing queued: no message").hasSize(2);
        assertThat(push.sent()).isEqualTo(ConsolePush.MAX_ITEMS + 1 + 1);
    }

    private static EpisodeFinished finished(String id, String status) {
        return new EpisodeFinished(id, "actor", "expectation", status, null, null, null);
    }

    private static List<Object> items(Object message) {
        assertThat(message).isInstanceOf(Map.class);
        assertThat(((Map<?, ?>) message).get("what")).isEqualTo("batch");
        @SuppressWarnings("unchecked")
        List<Object> items = (List<Object>) ((Map<?, ?>) message).get("items");
        return items;
    }
}
