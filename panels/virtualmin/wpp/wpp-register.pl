#!/usr/bin/perl
# wpp {{VERSION}}: registers wpp with Virtualmin, run by `wpp install virtualmin` (register,
# check) and `wpp uninstall virtualmin` (unregister). Usage: wpp-register.pl register|check|unregister COMMAND
#
# - Virtualmin's post-change command (post_command= in its module config) runs COMMAND after
#   every virtual server change. It holds one command: one another vendor set is never
#   overwritten (register refuses, saying what to do), and unregister clears only wpp's own.
# - The plugin list (plugins=) gets wpp, so Virtualmin shows its links and offers its feature
#   (Web Protection, per top-level server; virtual_feature.pl); the Webmin users who
#   may use Virtualmin get the wpp module in webmin.acl, so they may open those links.
# Paths are taken relative to where this file is installed (<root>/usr/share/webmin/wpp/), so
# `wpp install --root DIR` registers into DIR's Webmin, never this machine's.
use strict;
use warnings;
use Cwd qw(abs_path);
use File::Basename qw(dirname);

my ($action, $command) = @ARGV;
die "usage: $0 register|check|unregister COMMAND\n" if (!defined($command) || $command eq '' || $action !~ /\A(register|check|unregister)\z/);
die "$0: the command cannot hold a line break\n" if ($command =~ /[\r\n]/);

my $root = dirname(dirname(dirname(dirname(dirname(abs_path($0))))));
$root = '' if ($root eq '/');
my $config = "$root/etc/webmin/virtual-server/config";
my $acl = "$root/etc/webmin/webmin.acl";

sub read_lines
{
my ($file) = @_;
open(my $fh, '<', $file) || die "$0: cannot read $file: $!\n";
my @lines = <$fh>;
close($fh);
chomp(@lines);
return @lines;
}

# Written beside the file and renamed over it, with the file's mode and owner: Virtualmin never reads half a config.
sub write_lines
{
my ($file, @lines) = @_;
my @st = stat($file);
my $temp = "$file.wpp-tmp-$$";
open(my $fh, '>', $temp) || die "$0: cannot write $temp: $!\n";
print $fh map { "$_\n" } @lines;
close($fh) || die "$0: cannot write $temp: $!\n";
if (@st) {
	chmod($st[2] & 07777, $temp);
	chown($st[4], $st[5], $temp);
	}
rename($temp, $file) || die "$0: cannot replace $file: $!\n";
}

sub get_key
{
my ($lines, $key) = @_;
foreach my $l (@$lines) {
	return $1 if ($l =~ /\A\Q$key\E=(.*)\z/);
	}
return undef;
}

sub set_key
{
my ($lines, $key, $value) = @_;
foreach my $l (@$lines) {
	if ($l =~ /\A\Q$key\E=/) {
		$l = "$key=$value";
		return;
		}
	}
push(@$lines, "$key=$value");
}

my @conf = &read_lines($config);
my $post = &get_key(\@conf, 'post_command') // '';
my @plugins = split(/\s+/, &get_key(\@conf, 'plugins') // '');
my $ours = $post eq $command;
my $chained = !$ours && index($post, $command) >= 0;

if ($action eq 'check') {
	my @missing;
	push(@missing, "post_command does not run $command") if (!$ours && !$chained);
	push(@missing, 'wpp is not in the plugin list') if (!grep { $_ eq 'wpp' } @plugins);
	if (@missing) {
		print join("; ", @missing), "\n";
		exit(1);
		}
	print "post_command runs $command; wpp is a Virtualmin plugin\n";
	exit(0);
	}

my @acl = -e $acl ? &read_lines($acl) : ();
if ($action eq 'register') {
	if ($post =~ /\S/ && !$ours && !$chained) {
		print STDERR "Virtualmin's post-change command is already set (post_command=$post in $config). ".
			"wpp does not replace another command: run $command from it as well (for example post_command=$post ; $command), ".
			"or clear it, then install again.\n";
		exit(3);
		}
	&set_key(\@conf, 'post_command', $command) if (!$ours && !$chained);
	push(@plugins, 'wpp') if (!grep { $_ eq 'wpp' } @plugins);
	&set_key(\@conf, 'plugins', join(' ', @plugins));
	&write_lines($config, @conf);
	# Every Webmin user who may use Virtualmin may use its wpp links (the pages check Virtualmin's own ACL).
	foreach my $l (@acl) {
		my ($user, $mods) = $l =~ /\A([^:]+):\s*(.*)\z/ or next;
		my @mods = split(/\s+/, $mods);
		next if (!grep { $_ eq 'virtual-server' } @mods);
		next if (grep { $_ eq 'wpp' } @mods);
		$l = "$user: ".join(' ', @mods, 'wpp');
		}
	&write_lines($acl, @acl) if (-e $acl);
	print $chained ? "post_command already runs $command (chained by the administrator); " : "post_command=$command; ";
	print "wpp added to Virtualmin's plugins\n";
	exit(0);
	}

# unregister: only what is wpp's.
if ($ours) {
	# Unset, as Virtualmin ships its config.
	@conf = grep { !/\Apost_command=/ } @conf;
	}
elsif ($chained) {
	print STDERR "post_command=$post runs $command among other commands: left as it is, remove $command from it yourself.\n";
	}
&set_key(\@conf, 'plugins', join(' ', grep { $_ ne 'wpp' } @plugins));
&write_lines($config, @conf);
foreach my $l (@acl) {
	my ($user, $mods) = $l =~ /\A([^:]+):\s*(.*)\z/ or next;
	my @mods = split(/\s+/, $mods);
	next if (!grep { $_ eq 'wpp' } @mods);
	$l = "$user: ".join(' ', grep { $_ ne 'wpp' } @mods);
	}
&write_lines($acl, @acl) if (-e $acl);
print "wpp removed from Virtualmin's post_command and plugins\n";
exit(0);
