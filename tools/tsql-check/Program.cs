// Parses T-SQL with ScriptDom (TSql160Parser: SQL Server 2022, the level Azure SQL accepts).
//
//   dotnet TsqlCheck.dll --stdin        one JSON request a line on stdin: {"sql": "..."}; one JSON
//                                       answer a line on stdout, in order:
//                                       {"errors": [{"line", "column", "number", "message"}],
//                                        "batches": n, "statements": ["SelectStatement", ...]}
//   dotnet TsqlCheck.dll FILE...        checks script files (GO separates batches); exit code 1 and
//                                       FILE:line:column: message on stderr when one does not parse.
//
// Identifiers in double quotes are identifiers (QUOTED_IDENTIFIER ON), as Kysely writes them and as
// tedious connections run. The long-running form lets a test send every statement it compiles
// without paying for a process start each time.
using System.Text.Json;
using System.Text.Json.Nodes;
using Microsoft.SqlServer.TransactSql.ScriptDom;

static JsonObject Check(string sql)
{
    var parser = new TSql160Parser(initialQuotedIdentifiers: true);
    using var reader = new StringReader(sql);
    var fragment = parser.Parse(reader, out IList<ParseError> errors);
    var errorList = new JsonArray();
    foreach (var e in errors)
        errorList.Add(new JsonObject { ["line"] = e.Line, ["column"] = e.Column, ["number"] = e.Number, ["message"] = e.Message });
    var statements = new JsonArray();
    var batches = 0;
    if (fragment is TSqlScript script)
    {
        batches = script.Batches.Count;
        foreach (var batch in script.Batches)
            foreach (var statement in batch.Statements)
                statements.Add(statement.GetType().Name);
    }
    return new JsonObject { ["errors"] = errorList, ["batches"] = batches, ["statements"] = statements };
}

if (args.Length == 1 && args[0] == "--stdin")
{
    var output = new StreamWriter(Console.OpenStandardOutput()) { AutoFlush = false };
    string? line;
    while ((line = Console.In.ReadLine()) != null)
    {
        if (line.Length == 0) continue;
        JsonObject answer;
        try
        {
            var sql = JsonNode.Parse(line)?["sql"]?.GetValue<string>() ?? throw new InvalidDataException("no \"sql\" string");
            answer = Check(sql);
        }
        catch (Exception e) when (e is JsonException or InvalidDataException or InvalidOperationException)
        {
            answer = new JsonObject { ["request_error"] = e.Message };
        }
        output.WriteLine(answer.ToJsonString());
        output.Flush();
    }
    return 0;
}

if (args.Length == 0 || args.Any(a => a.StartsWith('-')))
{
    Console.Error.WriteLine("usage: TsqlCheck --stdin | TsqlCheck FILE...");
    return 2;
}

var failed = false;
foreach (var file in args)
{
    var result = Check(File.ReadAllText(file));
    foreach (var e in result["errors"]!.AsArray())
    {
        failed = true;
        Console.Error.WriteLine($"{file}:{e!["line"]}:{e["column"]}: error {e["number"]}: {e["message"]}");
    }
    if (!failed) Console.WriteLine($"{file}: {result["statements"]!.AsArray().Count} statements in {result["batches"]} batches parse");
}
return failed ? 1 : 0;
