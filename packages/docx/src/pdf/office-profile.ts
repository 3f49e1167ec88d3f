import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * A LibreOffice user profile made for one conversion: LibreOffice refuses to run twice on one
 * profile, and a fresh one per run also means nothing (recent files, settings, a crashed
 * run's lock) carries over. It holds only what the conversion needs:
 *
 * - `registrymodifications.xcu` saying the profile is set up, so LibreOffice does not copy its
 *   presets over our Basic library on first start, and never makes backup copies;
 * - an application Basic library with the conversion macro. Application macros run without a
 *   security prompt; Basic ships with every LibreOffice, so no Python-UNO package is needed.
 *
 * The macro opens the DOCX hidden, with links never updated and macros never run, updates every
 * index (the table of contents gets its page numbers) and every field, updates the indexes once
 * more when that moved pages, writes the PDF and closes the document. An error is written to a
 * file beside the PDF, since a headless LibreOffice has nowhere to show it.
 */

const REGISTRY = `<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Setup/Office"><prop oor:name="ooSetupInstCompleted" oor:op="fuse"><value>true</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Save/Document"><prop oor:name="CreateBackup" oor:op="fuse"><value>false</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="UseLocking" oor:op="fuse"><value>false</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Security/Scripting"><prop oor:name="MacroSecurityLevel" oor:op="fuse"><value>3</value></prop></item>
</oor:items>
`;

const LIBRARIES = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE library:libraries PUBLIC "-//OpenOffice.org//DTD OfficeDocument 1.0//EN" "libraries.dtd">
<library:libraries xmlns:library="http://openoffice.org/2000/library" xmlns:xlink="http://www.w3.org/1999/xlink">
 <library:library library:name="Standard" library:link="false"/>
</library:libraries>
`;

const LIBRARY = (elements: string) => `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE library:library PUBLIC "-//OpenOffice.org//DTD OfficeDocument 1.0//EN" "library.dtd">
<library:library xmlns:library="http://openoffice.org/2000/library" library:name="Standard" library:readonly="false" library:passwordprotected="false">${elements}</library:library>
`;

/** The Basic module, XML-escaped where the module format needs it (`&amp;`). */
const MODULE = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE script:module PUBLIC "-//OpenOffice.org//DTD OfficeDocument 1.0//EN" "module.dtd">
<script:module xmlns:script="http://openoffice.org/2000/script" script:name="Export" script:language="StarBasic">
Sub ToPdf(inUrl As String, outUrl As String, errorUrl As String)
  Dim doc As Object
  Dim stage As String
  On Error GoTo Failed
  stage = "open"
  Dim load(2) As New com.sun.star.beans.PropertyValue
  load(0).Name = "Hidden"
  load(0).Value = True
  load(1).Name = "UpdateDocMode"
  load(1).Value = 0
  load(2).Name = "MacroExecutionMode"
  load(2).Value = 0
  doc = StarDesktop.loadComponentFromURL(inUrl, "_blank", 0, load())
  If IsNull(doc) Then
    WriteError(errorUrl, "the document could not be opened")
    Exit Sub
  End If
  stage = "update"
  Dim before As Long
  before = doc.getCurrentController().getPropertyValue("PageCount")
  UpdateIndexes(doc)
  doc.getTextFields().refresh()
  If doc.getCurrentController().getPropertyValue("PageCount") &lt;&gt; before Then UpdateIndexes(doc)
  stage = "export"
  Dim store(0) As New com.sun.star.beans.PropertyValue
  store(0).Name = "FilterName"
  store(0).Value = "writer_pdf_Export"
  doc.storeToURL(outUrl, store())
  doc.close(True)
  Exit Sub
Failed:
  WriteError(errorUrl, stage &amp; ": " &amp; Error$ &amp; " (" &amp; Err &amp; ")")
  On Error Resume Next
  If Not IsNull(doc) Then doc.close(True)
End Sub

Sub UpdateIndexes(doc As Object)
  Dim indexes As Object
  Dim i As Integer
  indexes = doc.getDocumentIndexes()
  For i = 0 To indexes.getCount() - 1
    indexes.getByIndex(i).update()
  Next i
End Sub

Sub WriteError(errorUrl As String, message As String)
  Dim f As Integer
  f = FreeFile()
  Open ConvertFromURL(errorUrl) For Output As #f
  Print #f, message
  Close #f
End Sub
</script:module>
`;

/** Writes a fresh profile under `dir` (which must exist and be empty). */
export async function writeOfficeProfile(dir: string): Promise<void> {
  const user = path.join(dir, 'user');
  const basic = path.join(user, 'basic');
  const standard = path.join(basic, 'Standard');
  await mkdir(standard, { recursive: true });
  await Promise.all([
    writeFile(path.join(user, 'registrymodifications.xcu'), REGISTRY),
    writeFile(path.join(basic, 'script.xlc'), LIBRARIES),
    writeFile(path.join(basic, 'dialog.xlc'), LIBRARIES),
    writeFile(path.join(standard, 'script.xlb'), LIBRARY('\n <library:element library:name="Export"/>\n')),
    writeFile(path.join(standard, 'dialog.xlb'), LIBRARY('')),
    writeFile(path.join(standard, 'Export.xba'), MODULE),
  ]);
}

/** The macro call that converts `input` to `output`, writing any error to `errors` (all absolute file URLs). */
export function conversionMacro(input: string, output: string, errors: string): string {
  const arg = (url: string) => `"${url.replace(/"/g, '%22')}"`;
  return `macro:///Standard.Export.ToPdf(${arg(input)},${arg(output)},${arg(errors)})`;
}
