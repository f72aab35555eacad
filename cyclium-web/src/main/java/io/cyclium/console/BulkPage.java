package io.cyclium.console;

import io.cyclium.audit.AuditAction;
import io.cyclium.operations.BulkActionView;
import io.cyclium.operations.BulkCommands;
import io.cyclium.operations.BulkItemResult;
import io.cyclium.operations.BulkItemView;
import io.cyclium.problem.Problem;
import jakarta.faces.view.ViewScoped;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import java.io.Serializable;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Backs bulk.xhtml: one bulk action (?id=) with its progress and a page of its per-item results
 * (?result= for one kind, ?after= for the next page), refreshed every 2 s while it runs; without
 * an id, the newest actions. Viewers see it too; an admin may cancel a running action here (the
 * same command as the API's, audited as bulk.cancel).
 */
@Named("bulkPage")
@ViewScoped
public class BulkPage implements Serializable {

    private static final long serialVersionUID = 1L;

    static final int ITEMS_SHOWN = 50;
    static final int ACTIONS_SHOWN = 30;

    @Inject
    BulkCommands bulk;

    @Inject
    ConsoleUser user;

    private String id;
    private String result;
    private int after;
    private BulkActionView action;
    private List<BulkItemView> items = List.of();
    private boolean more;
    private List<BulkActionView> newest = List.of();
    private String missing;

    public void load() {
        missing = null;
        if (id == null || id.isBlank()) {
            List<BulkActionView> read = ConsoleMessages.attempt(() -> bulk.newest(ACTIONS_SHOWN));
            newest = read == null ? List.of() : read;
            return;
        }
        try {
            action = bulk.find(id);
            BulkItemResult only = result == null || result.isBlank() ? null : BulkItemResult.parse(result).orElse(null);
            List<BulkItemView> read = bulk.items(id, after, only, ITEMS_SHOWN + 1);
            more = read.size() > ITEMS_SHOWN;
            items = more ? read.subList(0, ITEMS_SHOWN) : read;
        } catch (Problem p) {
            action = null;
            missing = p.getMessage();
        }
    }

    /** Cancels the running action wherever it is processed (admin); the rest of its items are skipped. */
    public void cancel() {
        if (user.act("cancel bulk action", AuditAction.BULK_CANCEL, id, () -> bulk.cancel(id)) != null) {
            ConsoleMessages.info("Bulk action canceled: the items not yet processed are skipped.");
        }
        load();
    }

    /** Percent of the items with a final result, for the progress bar. */
    public int getPercent() {
        return action == null || action.total() == 0 ? 0 : (int) (action.processed() * 100 / action.total());
    }

    public boolean isRunning() {
        return action != null && "running".equals(action.status());
    }

    /** The filter as the list page takes it, e.g. "actor=billing, status=failed". */
    public String getFilterText() {
        return action == null ? "" : action.filter().entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                .collect(Collectors.joining(", "));
    }

    /** The episode list with the action's filter (what matched when it was accepted, and what matches now). */
    public String getEpisodesUrl() {
        PageUrl url = PageUrl.of("episodes.xhtml");
        if (action != null) {
            for (Map.Entry<String, String> e : action.filter().entrySet()) {
                url.with(e.getKey(), e.getValue());
            }
        }
        return url.toString();
    }

    public String getNextUrl() {
        return more && !items.isEmpty() ? PageUrl.of("bulk.xhtml").with("id", id).with("result", result)
                .with("after", items.get(items.size() - 1).itemNo()).toString() : null;
    }

    public String resultUrl(String r) {
        return PageUrl.of("bulk.xhtml").with("id", id).with("result", r).toString();
    }

    public List<String> getResults() {
        return Arrays.stream(BulkItemResult.values()).map(BulkItemResult::wire).toList();
    }

    public String getId() {
        return id;
    }

    public void setId(String id) {
        this.id = id;
    }

    public String getResult() {
        return result;
    }

    public void setResult(String result) {
        this.result = result;
    }

    public int getAfter() {
        return after;
    }

    public void setAfter(int after) {
        this.after = Math.max(0, after);
    }

    public BulkActionView getAction() {
        return action;
    }

    public List<BulkItemView> getItems() {
        return items;
    }

    public List<BulkActionView> getNewest() {
        return newest;
    }

    public String getMissing() {
        return missing;
    }
}
