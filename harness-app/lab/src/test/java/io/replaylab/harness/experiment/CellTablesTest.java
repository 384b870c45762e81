package io.replaylab.harness.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.apache.kafka.clients.consumer.GroupProtocol;
import org.junit.jupiter.api.Test;

/** The docs' table of the default wire-fault cells is the catalogue's: one row names each default cell of each group protocol. */
class CellTablesTest {
    @Test
    void theDocsTableOfDefaultWireFaultCellsNamesEveryDefaultCellOfBothProtocols() throws Exception {
        String doc = Files.readString(Path.of("..", "..", "docs", "how-a-run-works.md"));
        String table = doc.substring(doc.indexOf("The default cells (per group protocol)"), doc.indexOf("Found by it:"));
        List<String> rows = table.lines().filter(l -> l.trim().startsWith("| `")).toList();
        for (GroupProtocol protocol : GroupProtocol.values()) {
            for (WireFaultCell cell : WireFaultCell.defaults(protocol)) {
                assertThat(rows).as(protocol + ": " + cell).anyMatch(r -> r.contains("`" + cell + "`"));
            }
        }
        assertThat(rows).as("no row for a cell that is no default").allMatch(r -> WireFaultCell.defaults(GroupProtocol.CLASSIC).stream()
                .anyMatch(c -> r.trim().startsWith("| `" + c + "`")) || WireFaultCell.defaults(GroupProtocol.CONSUMER).stream()
                .anyMatch(c -> r.trim().startsWith("| `" + c + "`")));
    }
}
