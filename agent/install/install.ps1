<#
.SYNOPSIS
  Coffer agent installer for Windows, served at /downloads/install.ps1 (the setup wizard's command).

.DESCRIPTION
  Run from an elevated PowerShell (Windows PowerShell 5.1 or later), in the folder where the
  wizard saved coffer-agent-windows-x64.exe (it is downloaded when it is not there):

    powershell -ExecutionPolicy Bypass -File .\install.ps1 -Server https://COFFER

  It asks for the API key (or takes it from $env:COFFER_API_KEY): a -ApiKey on the command line is
  visible to every user of the computer in the process list. Installs the agent (no Node.js
  needed), the MongoDB Database Tools built for it (mongodump.exe, mongorestore.exe, in
  "$env:ProgramFiles\Coffer\tools", where the agent looks first) and the service wrapper (WinSW) to
  "$env:ProgramFiles\Coffer", both verified against the SHA-256 hashes written into this script
  when the release was built (it is itself listed in the release's signed SHA256SUMS; Windows
  PowerShell cannot check an Ed25519 signature without extra modules, see docs/releases.md); writes the
  configuration (server, API key, the new encryption key) to "$env:ProgramData\Coffer\agent.json",
  in a folder only SYSTEM and Administrators can open; and registers the Windows service
  coffer-agent (LocalSystem, automatic start, restarted by Windows when it exits). Running it again
  upgrades in place and keeps the key and the databases. -Uninstall removes the service and the
  program folder; -Uninstall -Purge also deletes the configuration, the encryption key, the state
  and the logs. See docs/agent-install.md.

.PARAMETER Server
  The Coffer address, e.g. https://coffer.example.com. An upgrade reads it from the configuration.
.PARAMETER ApiKey
  Your API key (Settings -> Security). Better left out: the installer asks for it, or reads
  $env:COFFER_API_KEY.
.PARAMETER Name
  The agent's name on the dashboard (default: this computer's name).
.PARAMETER ToolsDir
  Use your own mongodump.exe and mongorestore.exe from this folder instead of the bundled ones.
.PARAMETER Uninstall
  Remove the service and "$env:ProgramFiles\Coffer"; keeps "$env:ProgramData\Coffer" (your key).
.PARAMETER Purge
  With -Uninstall: also delete "$env:ProgramData\Coffer" (configuration, key, state and logs).
#>
[CmdletBinding()]
param(
  [string]$Server = '',
  [string]$ApiKey = '',
  [string]$Name = '',
  [string]$ToolsDir = '',
  [switch]$Uninstall,
  [switch]$Purge
)

Set-StrictMode -Version Latest
$ErrorActionPreference = 'Stop'
# Invoke-WebRequest in Windows PowerShell 5.1 is many times slower while it draws a progress bar.
$ProgressPreference = 'SilentlyContinue'

$ServiceId = 'coffer-agent'
$AgentFile = 'coffer-agent-windows-x64.exe'
$WrapperFile = 'coffer-agent-service.exe'
$InstallDir = Join-Path $env:ProgramFiles 'Coffer'
$AgentExe = Join-Path $InstallDir 'coffer-agent.exe'
$WrapperExe = Join-Path $InstallDir $WrapperFile
$WrapperXml = Join-Path $InstallDir 'coffer-agent-service.xml'
$WrapperConfig = Join-Path $InstallDir 'coffer-agent-service.exe.config'
$DataDir = Join-Path $env:ProgramData 'Coffer'
$Config = Join-Path $DataDir 'agent.json'
$StateDir = Join-Path $DataDir 'state'
$TempForService = Join-Path $StateDir 'tmp'
$LogDir = Join-Path $DataDir 'logs'
# Well-known SIDs, so the ACL is right on Windows in any language: LocalSystem, Administrators.
$SystemSid = '*S-1-5-18'
$AdminsSid = '*S-1-5-32-544'
# The SHA-256 of each file this script installs, written in by the build
# (agent/scripts/build-binaries.mjs). Neither .NET Framework nor .NET 8 can verify Ed25519 without
# an extra module, so the files are pinned here instead of checked against the server's SHA256SUMS:
# this script is in the signed SHA256SUMS, and the agent checks the signature of every update.
$PinnedSums = @{}

function Say([string]$Message) {
  Write-Host "coffer: $Message"
}

function Warn([string]$Message) {
  $host.UI.WriteErrorLine("coffer: warning: $Message")
}

function Fail([string]$Message) {
  $host.UI.WriteErrorLine("coffer: $Message")
  exit 1
}

# Runs a native program and returns its exit code and standard output (standard error goes to the
# console). Windows PowerShell 5.1 turns redirected stderr lines into errors, which 'Stop' would
# make fatal, so the preference is relaxed for the call and the exit code is checked instead.
function Invoke-Native([string]$FilePath, [string[]]$ArgumentList) {
  $saved = $ErrorActionPreference
  $ErrorActionPreference = 'Continue'
  try {
    $output = @(& $FilePath @ArgumentList)
    $code = $LASTEXITCODE
  } finally {
    $ErrorActionPreference = $saved
  }
  return [pscustomobject]@{ Code = $code; Output = $output }
}

# init with the API key in its environment: a command line is visible to every user of the computer.
function Invoke-Init([string[]]$InitArgs, [string]$Key) {
  $env:COFFER_API_KEY = $Key
  try {
    return Invoke-Native $AgentExe ($InitArgs + @('--server', $Server))
  } finally {
    Remove-Item Env:COFFER_API_KEY -ErrorAction SilentlyContinue
  }
}

function Get-AgentService {
  return Get-Service -Name $ServiceId -ErrorAction SilentlyContinue
}

function Stop-AgentService {
  $service = Get-AgentService
  if ($null -ne $service -and $service.Status -ne 'Stopped') {
    Say 'stopping the coffer-agent service'
    Stop-Service -Name $ServiceId -Force
    $service.WaitForStatus('Stopped', (New-TimeSpan -Seconds 60))
  }
}

# Deletes a file or folder, retrying while a process that is exiting still holds it open.
function Remove-WithRetry([string]$Path) {
  for ($i = 1; $i -le 10; $i++) {
    if (-not (Test-Path -LiteralPath $Path)) { return }
    try {
      Remove-Item -LiteralPath $Path -Recurse -Force
      return
    } catch {
      if ($i -eq 10) { throw }
      Start-Sleep -Seconds 1
    }
  }
}

if ($Purge -and -not $Uninstall) { Fail '-Purge goes with -Uninstall: .\install.ps1 -Uninstall -Purge' }

$principal = New-Object Security.Principal.WindowsPrincipal([Security.Principal.WindowsIdentity]::GetCurrent())
if (-not $principal.IsInRole([Security.Principal.WindowsBuiltInRole]::Administrator)) {
  Fail 'run the installer from an elevated PowerShell (right-click PowerShell, "Run as administrator")'
}
if (-not [Environment]::Is64BitProcess) {
  Fail 'run the installer from 64-bit PowerShell, not "Windows PowerShell (x86)"'
}

if ($Uninstall) {
  try {
    $service = Get-AgentService
    if ($null -ne $service) {
      Stop-AgentService
      if (Test-Path -LiteralPath $WrapperExe) {
        $null = Invoke-Native $WrapperExe @('uninstall')
      }
      if ($null -ne (Get-AgentService)) {
        $null = Invoke-Native 'sc.exe' @('delete', $ServiceId)
      }
      for ($i = 0; $i -lt 10 -and $null -ne (Get-AgentService); $i++) { Start-Sleep -Seconds 1 }
      if ($null -ne (Get-AgentService)) {
        Warn 'Windows has marked the service coffer-agent for deletion; it goes once the Services window (services.msc) is closed'
      }
    }
    Remove-WithRetry $InstallDir
    Say "removed the coffer-agent service and $InstallDir"
    if ($Purge) {
      Remove-WithRetry $DataDir
      Say "deleted $DataDir (configuration, encryption key, state and logs)"
    } else {
      Say "kept $DataDir (your encryption key and databases); -Uninstall -Purge deletes it"
    }
  } catch {
    Fail $_.Exception.Message
  }
  exit 0
}

# --- install or upgrade -----------------------------------------------------------------------

$upgrade = Test-Path -LiteralPath $Config -PathType Leaf
$current = $null
if ($upgrade) {
  try {
    $current = Get-Content -LiteralPath $Config -Raw | ConvertFrom-Json
  } catch {
    Fail "$Config is not valid JSON. It may hold your encryption key, so the installer will not touch it: fix it or move it away first"
  }
}

function Get-ConfigValue([string]$Property) {
  if ($null -ne $current -and @($current.PSObject.Properties.Name) -contains $Property) {
    return [string]$current.$Property
  }
  return ''
}

if (-not $ApiKey -and $env:COFFER_API_KEY) { $ApiKey = $env:COFFER_API_KEY }
if (-not $upgrade -and -not $ApiKey -and [Environment]::UserInteractive) {
  $secure = Read-Host -AsSecureString 'Coffer API key (Settings -> Security on the dashboard)'
  $ApiKey = [Runtime.InteropServices.Marshal]::PtrToStringBSTR([Runtime.InteropServices.Marshal]::SecureStringToBSTR($secure))
}
$ApiKey = $ApiKey.Trim()
if (-not $upgrade -and (-not $Server -or -not $ApiKey)) {
  Fail '-Server and the API key are needed for a first install (Settings -> Security shows your key: paste it when asked, or set $env:COFFER_API_KEY)'
}
$serverGiven = [bool]$Server
if (-not $Server) {
  # An upgrade downloads from the server the agent already uses.
  $Server = Get-ConfigValue 'server'
  if (-not $Server) { Fail "$Config names no server; pass -Server URL" }
}
$Server = $Server.Trim().TrimEnd('/')
if ($Server -notmatch '^https?://[^\s/]+') {
  Fail "-Server must be the Coffer address, like https://coffer.example.com (got '$Server')"
}
if ($Name.Contains('"')) { Fail '-Name cannot contain double quotes' }
if (-not [Environment]::Is64BitOperatingSystem) { Fail 'the Coffer agent needs 64-bit Windows' }

# Windows PowerShell 5.1 may offer only TLS 1.0 by default; Coffer servers want TLS 1.2.
[Net.ServicePointManager]::SecurityProtocol = [Net.ServicePointManager]::SecurityProtocol -bor [Net.SecurityProtocolType]::Tls12

$ScriptDir = $PSScriptRoot
if (-not $ScriptDir) { $ScriptDir = (Get-Location).Path }
$TempDir = Join-Path ([IO.Path]::GetTempPath()) ('coffer-install-' + [Guid]::NewGuid().ToString('N'))
$null = New-Item -ItemType Directory -Path $TempDir

function Save-Download([string]$File, [string]$Destination) {
  $url = "$Server/downloads/$File"
  try {
    Invoke-WebRequest -Uri $url -OutFile $Destination -UseBasicParsing
  } catch {
    Fail "cannot download ${url}: $($_.Exception.Message)"
  }
}

function Test-Sha256([string]$Path, [string]$File) {
  if (-not $PinnedSums.ContainsKey($File)) { Fail "this install.ps1 was built without $File; download install.ps1 again from your Coffer server" }
  $actual = (Get-FileHash -LiteralPath $Path -Algorithm SHA256).Hash.ToLowerInvariant()
  return ($actual -eq $PinnedSums[$File])
}

# The copy beside this script when it matches the pinned hash (the wizard's download step saved
# it there), else a fresh download that must match. Windows cannot unpack the .zst copies natively,
# so the plain files are downloaded.
function Get-VerifiedFile([string]$File) {
  $local = Join-Path $ScriptDir $File
  if (Test-Path -LiteralPath $local -PathType Leaf) {
    if (Test-Sha256 $local $File) {
      Say "using $local (matches the release's SHA-256)"
      return $local
    }
    Warn "$local does not match the release's SHA-256 (an older or incomplete download?); downloading it again"
  }
  $destination = Join-Path $TempDir $File
  Say "downloading $File"
  Save-Download $File $destination
  if (-not (Test-Sha256 $destination $File)) {
    Fail "refused: $File does not match the SHA-256 of the release this installer belongs to; nothing was installed"
  }
  return $destination
}

# Puts $Source at $Target. A running exe cannot be overwritten but can be renamed away, so the
# old file goes to .old first (the agent's self-update does the same).
function Install-File([string]$Source, [string]$Target) {
  $new = "$Target.new"
  $old = "$Target.old"
  Copy-Item -LiteralPath $Source -Destination $new -Force
  Remove-Item -LiteralPath $old -Force -ErrorAction SilentlyContinue
  if (Test-Path -LiteralPath $old) {
    Fail "$old is in use: stop any coffer-agent.exe that is still running and run the installer again"
  }
  if (Test-Path -LiteralPath $Target) { Move-Item -LiteralPath $Target -Destination $old -Force }
  Move-Item -LiteralPath $new -Destination $Target -Force
  Remove-Item -LiteralPath $old -Force -ErrorAction SilentlyContinue
  # Drop the browser's "downloaded from the internet" mark, which the copy keeps.
  Unblock-File -LiteralPath $Target
}

# The agent finds the Database Tools in tools\ beside its exe (agent/src/pipeline/tools.ts).
$BundledTools = Join-Path $InstallDir 'tools'
$ToolFiles = @{ 'mongodump.exe' = 'mongodump-windows-x64.exe'; 'mongorestore.exe' = 'mongorestore-windows-x64.exe' }

function Test-ToolsIn([string]$Dir) {
  try {
    return (Test-Path -LiteralPath (Join-Path $Dir 'mongodump.exe') -PathType Leaf) -and
      (Test-Path -LiteralPath (Join-Path $Dir 'mongorestore.exe') -PathType Leaf)
  } catch {
    return $false
  }
}

# What the service will use as COFFER_TOOLS_DIR: -ToolsDir, else none (the bundled tools).
function Resolve-ToolsDir {
  if ($ToolsDir) {
    # The service starts in another folder: make a relative path absolute (from this prompt's folder).
    $dir = $ExecutionContext.SessionState.Path.GetUnresolvedProviderPathFromPSPath($ToolsDir).TrimEnd('\')
    if (-not (Test-ToolsIn $dir)) { Warn "mongodump.exe and mongorestore.exe are not both in $dir" }
    return $dir
  }
  return ''
}

function Write-Utf8([string]$Path, [string[]]$Lines) {
  [IO.File]::WriteAllText($Path, (($Lines -join "`r`n") + "`r`n"), (New-Object Text.UTF8Encoding($false)))
}

function Write-ServiceFiles([string]$Tools) {
  $x = { param([string]$Value) [Security.SecurityElement]::Escape($Value) }
  $lines = @(
    '<?xml version="1.0" encoding="utf-8"?>',
    '<!-- Written by the Coffer installer (install.ps1); re-running it rewrites this file. WinSW 1.x format. -->',
    '<service>',
    "  <id>$ServiceId</id>",
    '  <name>Coffer backup agent</name>',
    '  <description>Backs up MongoDB databases to Coffer, encrypted on this server before upload.</description>',
    "  <executable>$(& $x $AgentExe)</executable>",
    "  <arguments>run --config &quot;$(& $x $Config)&quot;</arguments>",
    '  <env name="COFFER_AGENT_SUPERVISED" value="1"/>',
    # Dumps are staged in the temporary folder before encryption: keep them in the private one.
    "  <env name=`"TEMP`" value=`"$(& $x $TempForService)`"/>",
    "  <env name=`"TMP`" value=`"$(& $x $TempForService)`"/>"
  )
  if ($Tools) { $lines += "  <env name=`"COFFER_TOOLS_DIR`" value=`"$(& $x $Tools)`"/>" }
  $lines += @(
    '  <startmode>Automatic</startmode>',
    # The agent exits with code 75 to be restarted (restart command, self-update); any non-zero
    # exit makes Windows run these recovery actions. The last one repeats.
    '  <onfailure action="restart" delay="5 sec"/>',
    '  <onfailure action="restart" delay="10 sec"/>',
    '  <onfailure action="restart" delay="30 sec"/>',
    '  <resetfailure>1 hour</resetfailure>',
    '  <stoptimeout>30 sec</stoptimeout>',
    "  <logpath>$(& $x $LogDir)</logpath>",
    '  <log mode="roll-by-size">',
    '    <sizeThreshold>10240</sizeThreshold>',
    '    <keepFiles>8</keepFiles>',
    '  </log>',
    '</service>'
  )
  Write-Utf8 $WrapperXml $lines
  # WinSW 1.x targets .NET 2.0, which Windows Server 2019 and later do not install; this lets it
  # run on the .NET 4 that they do (node-windows ships the same file beside it).
  Write-Utf8 $WrapperConfig @(
    '<?xml version="1.0" encoding="utf-8"?>',
    '<configuration>',
    '  <startup>',
    '    <supportedRuntime version="v2.0.50727" />',
    '    <supportedRuntime version="v4.0" />',
    '  </startup>',
    '</configuration>'
  )
}

# The configuration folder holds the encryption key: SYSTEM (the service) and Administrators only,
# nothing inherited from ProgramData (which lets every user read).
function Protect-DataDir {
  foreach ($dir in @($DataDir, $StateDir, $TempForService, $LogDir)) {
    $null = New-Item -ItemType Directory -Path $dir -Force
  }
  $result = Invoke-Native 'icacls.exe' @($DataDir, '/inheritance:r', '/grant:r', "${SystemSid}:(OI)(CI)F", "${AdminsSid}:(OI)(CI)F", '/Q')
  if ($result.Code -ne 0) { Fail "cannot restrict access to $DataDir (icacls exited with $($result.Code))" }
  # Everything inside inherits exactly that (also files written before this installer ran).
  $result = Invoke-Native 'icacls.exe' @((Join-Path $DataDir '*'), '/reset', '/T', '/C', '/Q')
  if ($result.Code -ne 0) { Warn "cannot reset the permissions of every file in $DataDir (icacls exited with $($result.Code))" }
}

function Show-AgentStatus {
  for ($i = 0; $i -lt 15; $i++) {
    Start-Sleep -Seconds 1
    $result = Invoke-Native $AgentExe @('status', '--config', $Config)
    if ($result.Code -eq 0 -and $result.Output.Count -gt 0 -and ([string]$result.Output[0]).StartsWith('running')) {
      Say 'the coffer-agent service is running:'
      foreach ($line in $result.Output) { Write-Host "    $line" }
      return $true
    }
  }
  return $false
}

try {
  $agentSource = Get-VerifiedFile $AgentFile
  $wrapperSource = Get-VerifiedFile $WrapperFile

  $result = Invoke-Native $agentSource @('--version')
  if ($result.Code -ne 0) { Fail "the agent does not run on this machine (coffer-agent --version exited with $($result.Code))" }
  $version = ($result.Output -join ' ').Trim()

  $tools = Resolve-ToolsDir
  $toolSources = @{}
  if (-not $tools) {
    foreach ($tool in $ToolFiles.Keys) { $toolSources[$tool] = Get-VerifiedFile $ToolFiles[$tool] }
  }
  Protect-DataDir

  $wasRunning = $false
  $service = Get-AgentService
  if ($null -ne $service -and $service.Status -ne 'Stopped') { $wasRunning = $true }
  Stop-AgentService
  $null = New-Item -ItemType Directory -Path $InstallDir -Force
  Install-File $agentSource $AgentExe
  Install-File $wrapperSource $WrapperExe
  Say "installed ${AgentExe}: $version"
  if ($toolSources.Count -gt 0) {
    $null = New-Item -ItemType Directory -Path $BundledTools -Force
    foreach ($tool in $toolSources.Keys) { Install-File $toolSources[$tool] (Join-Path $BundledTools $tool) }
    Say "installed the MongoDB Database Tools in $BundledTools"
  }

  $agentName = $Name
  if (-not $agentName) { $agentName = Get-ConfigValue 'name' }
  $initArgs = @('init', '--config', $Config, '--state-dir', $StateDir)
  if ($agentName) { $initArgs += @('--name', $agentName) }
  if (-not $upgrade) {
    $result = Invoke-Init $initArgs $ApiKey
    if ($result.Code -ne 0) { Fail "coffer-agent init failed (exit code $($result.Code)); see its message above, then run the installer again" }
    Say "created the encryption key; it is in $Config (readable by SYSTEM and Administrators only)"
    foreach ($line in $result.Output) {
      if ([string]$line -match 'fingerprint') { Say ([string]$line) }
    }
    Write-Host ''
    Write-Host '  IMPORTANT: keep a copy of the encryption key away from this server. Without it no backup can'
    Write-Host '  be decrypted, and Coffer never receives it:'
    Write-Host "      & `"$AgentExe`" key export --out coffer-master.key"
    Write-Host '  (then move coffer-master.key somewhere safe and delete it here)'
    Write-Host ''
  } elseif ($ApiKey -or $Name -or ($serverGiven -and $Server -ne (Get-ConfigValue 'server'))) {
    # init keeps the existing encryption key; only server, API key or name change.
    $key = $ApiKey
    if (-not $key) { $key = Get-ConfigValue 'apiKey' }
    $result = Invoke-Init $initArgs $key
    if ($result.Code -ne 0) { Fail "coffer-agent init failed (exit code $($result.Code)); $Config was not changed" }
    Say "updated $Config; kept the encryption key and the databases"
  } else {
    Say "kept $Config (encryption key and databases)"
  }

  Write-ServiceFiles $tools
  if ($null -eq (Get-AgentService)) {
    $result = Invoke-Native $WrapperExe @('install')
    if ($result.Code -ne 0) {
      foreach ($line in $result.Output) { Write-Host "    $line" }
      Fail "registering the service failed ($WrapperFile install exited with $($result.Code))"
    }
    Say 'registered the Windows service coffer-agent (LocalSystem, starts with Windows, restarted when it exits)'
  }
  try {
    Start-Service -Name $ServiceId
  } catch {
    Fail "the coffer-agent service did not start: $($_.Exception.Message); see the logs in $LogDir and the System event log"
  }
  if ($wasRunning) { Say 'upgraded from the running version' }
  if (-not (Show-AgentStatus)) {
    Warn "the service did not report running yet; see the logs in $LogDir and: & `"$AgentExe`" status"
  }
  Write-Host "Check it any time with:  Get-Service $ServiceId;  & `"$AgentExe`" status   (logs: $LogDir)"

  if (-not $upgrade) {
    Write-Host ''
    Write-Host 'Next: add a database to back up (the connection string stays on this server):'
    Write-Host "    'mongodb://USER:PASSWORD@HOST:27017/DATABASE' | & `"$AgentExe`" db add production-db --uri -"
    Write-Host 'The running agent picks it up within seconds; then trigger a backup from the dashboard.'
  }
} catch {
  Fail $_.Exception.Message
} finally {
  Remove-Item -LiteralPath $TempDir -Recurse -Force -ErrorAction SilentlyContinue
}
